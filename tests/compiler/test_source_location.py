"""Errors that point at a line name a notebook cell as IPython's tracebacks do
(``In [2], line 3``), and a file by its own name elsewhere.

The notebook case runs in a fresh process with a real IPython shell, so the shell (a
process-wide singleton) cannot change how other tests see IPython.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from minitorch.compiler.source_location import describe_location

pytest.importorskip("IPython")

CELLS = [
    "import minitorch",
    "def f(x):\n    y = x * 2\n    if y.sum().item() > 0:\n        return y\n    return -y",
    "try:\n    minitorch.compile(f, warmup=0)(minitorch.ones(3))\n"
    "except minitorch.compiler.CaptureError as error:\n    print('MESSAGE', error)",
]
PROGRAM = f"""
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
for cell in {CELLS!r}:
    shell.run_cell(cell, store_history=True)
"""


def test_capture_error_in_a_cell_names_the_cell_and_line():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          check=True, timeout=300)  # fmt: skip
    message = next(line for line in done.stdout.splitlines() if line.startswith("MESSAGE"))
    # The .item() is on line 3 of the second cell, In [2]; no temporary file name.
    assert "reads a tensor's value (In [2], line 3)" in message, message
    assert ".py, line" not in message


def test_a_file_is_named_by_its_base_name_outside_ipython():
    assert describe_location("/somewhere/train.py", 12) == "train.py, line 12"
    assert describe_location("<stdin>", 1) == "<stdin>, line 1"
