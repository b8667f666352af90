"""Every course notebook runs headless from top to bottom, and every exercise notebook
runs both as handed out (each check says "not done yet") and with its solutions (each
check passes). A cell that raises fails the test."""

from __future__ import annotations

import pytest

from tests.course.notebooks import (
    chapter_notebooks,
    execute,
    exercise_names,
    exercise_notebooks,
    solutions_for,
    text_outputs,
)

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


@pytest.mark.slow
@pytest.mark.parametrize("notebook", chapter_notebooks(), ids=lambda p: p.stem)
def test_chapter_notebook_runs(notebook) -> None:
    executed = execute(notebook)
    text = text_outputs(executed)
    assert "Traceback" not in text


@pytest.mark.slow
@pytest.mark.parametrize("notebook", exercise_notebooks(), ids=lambda p: p.stem)
def test_exercise_solutions_pass_every_check(notebook) -> None:
    names = exercise_names(notebook)
    assert names, "an exercise notebook needs at least one exercise cell"
    text = text_outputs(execute(notebook, solutions_for(notebook)))
    assert text.count("✓") == len(names), text
    assert "not done yet" not in text


@pytest.mark.slow
@pytest.mark.parametrize("notebook", exercise_notebooks(), ids=lambda p: p.stem)
def test_exercise_notebook_as_handed_out_runs(notebook) -> None:
    text = text_outputs(execute(notebook))
    assert text.count("not done yet") == len(exercise_names(notebook)), text
