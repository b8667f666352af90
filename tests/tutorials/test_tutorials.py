"""Tutorial-style programs run unchanged on both libraries and print the same thing.

Each file in ``programs/`` is written for PyTorch (``import torch``), in the style of
PyTorch's beginner tutorials, and uses only data that does not depend on the random
generator (the two libraries draw different random numbers). The test runs it twice in
fresh processes: as written, with PyTorch, and with only its import lines changed
(``import torch`` -> ``import minitorch as torch``, ``from torch.nn import ...`` ->
``from minitorch.nn import ...``), and compares everything it prints.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.py"))

_IMPORT_TORCH = re.compile(r"^(\s*)import torch(\.[\w.]+)?( as \w+)?\s*$")
_FROM_TORCH = re.compile(r"^(\s*)from torch(\.[\w.]+)? import ")


def with_minitorch_imports(source: str) -> str:
    """Change the import lines only: every other line is run exactly as written."""
    lines = []
    for line in source.splitlines():
        imported = _IMPORT_TORCH.match(line)
        if imported:
            indent, submodule, alias = imported.groups()
            if submodule:  # import torch.nn as nn / import torch.nn.functional as F
                line = f"{indent}import minitorch{submodule}{alias or ''}"
                if not alias:  # 'import torch.nn' also binds the name 'torch'
                    line += "; import minitorch as torch"
            else:
                line = f"{indent}import minitorch{alias or ' as torch'}"
        else:
            line = _FROM_TORCH.sub(lambda m: f"{m.group(1)}from minitorch{m.group(2) or ''} import ", line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def run(source: str, workdir: Path) -> str:
    environment = dict(os.environ, PYTHONHASHSEED="0", NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    finished = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, cwd=workdir,
        env=environment, timeout=600,
    )  # fmt: skip
    if finished.returncode != 0:
        raise AssertionError(f"the program failed:\n{finished.stdout}\n{finished.stderr}")
    return finished.stdout


def test_import_lines_are_the_only_change() -> None:
    source = (
        "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n"
        "x = torch.ones(2)  # torch stays\n"
    )
    assert with_minitorch_imports(source) == (
        "import minitorch as torch\nimport minitorch.nn as nn\n"
        "from minitorch.utils.data import DataLoader\nx = torch.ones(2)  # torch stays\n"
    )


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda path: path.stem)
def test_prints_what_pytorch_prints(program: Path, tmp_path: Path) -> None:
    source = program.read_text()
    expected = run(source, tmp_path)
    got = run(with_minitorch_imports(source), tmp_path)
    assert got == expected
