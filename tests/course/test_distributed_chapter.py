"""Chapter 11 where MPI engines cannot start (no ipyparallel, mpi4py or mpiexec): every
``%%px`` cell says it was skipped and why, the cells that run here still run, and "Run
all" reaches the end without a traceback. (With MPI, test_notebooks.py runs the chapter
on three real ranks.)"""

from __future__ import annotations

import pytest

from minitorch.course import mpi_engines
from tests.course.notebooks import NOTEBOOKS

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CHAPTER = NOTEBOOKS / "11_distributed_training.ipynb"
WITHOUT_MPI = """\
from minitorch.course import mpi_engines
mpi_engines.missing = lambda: "mpi4py is not installed (pip install 'minitorch[distributed]')"
"""


@pytest.mark.slow
def test_without_mpi_every_px_cell_is_skipped_and_the_rest_runs() -> None:
    notebook = nbformat.read(CHAPTER, as_version=4)
    px_cells = sum(cell.source.startswith("%%px") for cell in notebook.cells)
    assert px_cells >= 5
    notebook.cells.insert(0, nbformat.v4.new_code_cell(WITHOUT_MPI))
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})  # fmt: skip
    client.execute()
    text = "\n".join(output.get("text", "") + output.get("data", {}).get("text/plain", "")
                     for cell in notebook.cells for output in cell.get("outputs", []))  # fmt: skip
    assert "Traceback" not in text
    assert text.count("[skipped: this cell runs on MPI engines, and mpi4py is not installed") == px_cells
    assert "no MPI engines: mpi4py is not installed" in text and "(no engines were started" in text
    assert "bubble 20%" in text and "4096" in text  # the paper parts ran here


def test_missing_names_what_to_install(monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name):
        return None if name == "ipyparallel" else real(name)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert "ipyparallel is not installed" in mpi_engines.missing()
    assert "minitorch[distributed]" in mpi_engines.missing()
