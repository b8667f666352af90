"""A cold first run says that kernels are being compiled (once on stderr in a terminal, one
progress line in a notebook); a warm one is silent.

Runs two fresh processes that share a temporary, initially empty ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("numba")

PROGRAM = "import minitorch; x = minitorch.ones(3) + 1; y = x * 2; z = (x - y).sum(); print(z.item())"


def run_fresh(cache_dir) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), MINITORCH_CPU_BACKEND="numba")
    return subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True,
                          check=True, timeout=600)  # fmt: skip


def test_cold_run_says_once_that_it_compiles_and_warm_run_is_silent(tmp_path):
    cold = run_fresh(tmp_path)
    assert float(cold.stdout) == -6.0  # 3 * (2 - 4)
    notices = [line for line in cold.stderr.splitlines() if line.startswith("minitorch: compiling")]
    assert notices == [
        "minitorch: compiling the Numba kernel for add -- first use only, about 1-3 s per kernel"
        " (later runs load them from the disk cache)..."
    ]
    warm = run_fresh(tmp_path)
    assert float(warm.stdout) == -6.0
    assert "compiling" not in warm.stderr


def test_in_a_notebook_the_notice_is_one_quiet_progress_line_that_ends_done(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the kernel inherits it: a cold cache
    monkeypatch.setenv("MINITORCH_CPU_BACKEND", "numba")
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import minitorch\nx = minitorch.ones(3) + 1\ny = (x * 2).sum()"),
        nbformat.v4.new_code_cell("print(y.item())"),
    ])  # fmt: skip
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    first, second = (cell.outputs for cell in notebook.cells)
    assert not any(output.get("name") == "stderr" for output in first)  # no pink box
    [notice] = first  # one output, updated in place while the kernels compiled
    text = notice["data"]["text/plain"]
    assert re.fullmatch(
        r"minitorch: compiled \d+ Numba kernels for .+ in \d+\.\d s, first use only \(done\)", text
    )
    assert {"add", "sum"} <= set(text.split(" for ", 1)[1].split(" in ")[0].split(", "))
    assert "minitorch-notice" in notice["data"]["text/html"]
    assert [output.get("text") for output in second] == ["12.0\n"]  # warm now: nothing said
