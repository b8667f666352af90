"""The course's files agree with each other: notebooks are built from their sources, each
has its Colab badge and setup cell naming the one repository URL, each chapter states a
goal and ends with a summary, and every exercise has a reference solution."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from minitorch.course.notebook_setup import DEFAULT_SOURCE, REPO_URL, SOURCE_VARIABLE, colab_url, setup_cell
from tests.course.notebooks import (
    NOTEBOOKS,
    ROOT,
    SOLUTIONS,
    build,
    chapter_notebooks,
    exercise_names,
    exercise_notebooks,
    solutions_for,
)

ALL = chapter_notebooks() + exercise_notebooks()


def cells(notebook) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def test_there_is_a_whole_course() -> None:
    assert len(chapter_notebooks()) >= 9
    assert len(exercise_notebooks()) >= 8


def test_notebooks_are_built_from_their_sources() -> None:
    assert build.main(["--check"]) == 0, "run: python notebooks/build.py"
    built = {notebook for _, notebook in build.pairs()}
    assert set(ALL) <= built


@pytest.mark.parametrize("notebook", ALL, ids=lambda p: p.stem)
def test_badge_and_setup_cell_name_the_repository(notebook) -> None:
    all_cells = cells(notebook)
    relative = notebook.relative_to(ROOT).as_posix()
    assert colab_url(relative) in source(all_cells[0]), "the first cell carries the Colab badge"
    first_code = next(c for c in all_cells if c["cell_type"] == "code")
    text = source(first_code)
    assert f'COURSE_SOURCE = os.environ.get("{SOURCE_VARIABLE}", "{DEFAULT_SOURCE}")' in text
    assert "pip" in text and "course.setup(" in text
    urls = set(re.findall(r"https://github\.com/[\w.-]+/[\w.-]+", json.dumps(all_cells)))
    assert urls <= {REPO_URL}, f"repository URLs other than REPO_URL: {urls - {REPO_URL}}"


def pip_command_of_the_setup_cell(monkeypatch, environment: dict[str, str]) -> list[str]:
    """Run the setup cell where minitorch is not installed yet; return what it asks pip."""
    import minitorch

    monkeypatch.delenv(SOURCE_VARIABLE, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(sys.modules, "minitorch", None)  # `import minitorch` raises ImportError
    commands = []

    def pip(command, check):
        commands.append(command)
        sys.modules["minitorch"] = minitorch  # "installed": the cell's second import works

    monkeypatch.setattr(subprocess, "run", pip)
    backend = minitorch.get_backend("cpu")
    try:
        exec(setup_cell("quiet=True"), {"__name__": "__main__"})
    finally:
        minitorch.set_backend("cpu", backend)  # undo the CPU backend the cell picks
    return commands[0]


def test_the_setup_cell_installs_from_the_course_source(monkeypatch) -> None:
    command = pip_command_of_the_setup_cell(monkeypatch, {})
    assert command[1:4] == ["-m", "pip", "install"]
    assert command[-1] == f"minitorch[colab] @ git+{REPO_URL}"
    fork = "git+https://example.org/a-course/minitorch@spring"
    command = pip_command_of_the_setup_cell(monkeypatch, {SOURCE_VARIABLE: fork})
    assert command[-1] == f"minitorch[colab] @ {fork}"


@pytest.mark.parametrize("notebook", chapter_notebooks(), ids=lambda p: p.stem)
def test_chapter_states_goal_and_summary(notebook) -> None:
    markdown = "\n".join(source(c) for c in cells(notebook) if c["cell_type"] == "markdown")
    assert "**Goal" in markdown
    assert "## Summary" in markdown


@pytest.mark.parametrize("notebook", exercise_notebooks(), ids=lambda p: p.stem)
def test_every_exercise_has_a_solution_and_a_check(notebook) -> None:
    names = exercise_names(notebook)
    solutions = solutions_for(notebook)
    assert set(names) <= set(solutions), f"missing solutions in {SOLUTIONS}"
    all_cells = cells(notebook)
    for i, cell in enumerate(all_cells):
        if "exercise" in cell["metadata"].get("minitorch", {}):
            # Python exercises raise NotImplementedError; CUDA C ones (a string) say so
            assert "NotImplementedError" in source(cell) or "// your code here" in source(cell)
            assert "check_" in source(all_cells[i + 1]), "each exercise is followed by its check"


def test_every_chapter_has_an_exercise_notebook_with_its_name() -> None:
    exercises = {p.name for p in exercise_notebooks()}
    for chapter in chapter_notebooks():
        if chapter.name != "00_welcome.ipynb":
            assert chapter.name in exercises, f"no exercises for {chapter.name}"
    assert (NOTEBOOKS / "README.md").exists()
