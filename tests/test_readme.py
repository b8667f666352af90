"""Every Python example in the README runs as written (a student will paste them)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)

# The widget example refers to tensors a reader already has; give it some.
CONTEXT = {
    "widgets.strides(x": (
        "import minitorch\n"
        "x = minitorch.arange(12.0).view(3, 4)\n"
        "a, b = minitorch.ones(3, 1), minitorch.ones(4)\n"
        "model = minitorch.nn.Linear(4, 2)\n"
        "loss = model(x).sum()\n"
    ),
    "minitorch.cuda.Stream()": "import minitorch\nminitorch.cuda.use_emulator()\n",
}


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(block: str, tmp_path: Path) -> None:
    """In a fresh process (examples switch backends and turn on the CUDA emulator) and an
    empty folder (they may save files)."""
    prelude = "".join(code for marker, code in CONTEXT.items() if marker in block)
    code = prelude + block.replace("    ...\n", "    pass\n")
    root = str(README.parent)
    result = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {root!r})\n" + code],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert result.returncode == 0, f"README example failed:\n{code}\n{result.stderr[-3000:]}"


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 4
