"""Every Python example a reader copies runs the way readers run it.

The examples are the ```python blocks of the README and of ``docs/*.md``, and those in
the course notebooks' markdown cells. People paste them into a Python prompt, save them
as a file, or drop them into a notebook cell, on a laptop and on Colab's GPU, so each
runs in a fresh interpreter in all three ways:

* **prompt**: fed line by line to ``code.InteractiveConsole``, as pasted at ``>>>``
  (where a ``for`` or ``with`` block needs a blank line before the next statement);
* **file**: saved and run as ``python example.py``;
* **cell**: executed whole, the last expression shown, as Jupyter runs a cell;

and each of those twice: on the CPU, and with ``MINITORCH_CUDA=emulator``, where
``torch.accelerator`` finds a "GPU" as it does on Colab.

A block whose first line is a comment starting ``# continues`` runs after the block
before it, in the same interpreter. A block that is deliberately partial (a sketch, a
signature, another library's code) starts with ``# not runnable:`` and a reason.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
CONTINUES = "# continues"
NOT_RUNNABLE = "# not runnable:"


def markdown_documents() -> dict[str, str]:
    """``{name: markdown}`` for the README, ``docs/*.md`` and every notebook's markdown."""
    documents = {"README.md": README.read_text(encoding="utf-8")}
    for path in sorted((ROOT / "docs").glob("*.md")):
        documents[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:  # Jupyter's autosaves, not the course
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        documents[path.relative_to(ROOT).as_posix()] = "\n\n".join(markdown) + "\n"
    return documents


def example_sequences(markdown: str) -> list[list[str]]:
    """The runnable blocks of one document, grouped: a ``# continues`` block joins the
    group of the block before it."""
    sequences: list[list[str]] = []
    for block in FENCE.findall(markdown):
        if block.startswith(NOT_RUNNABLE):
            continue
        if block.startswith(CONTINUES) and sequences:
            sequences[-1].append(block)
        else:
            sequences.append([block])
    return sequences


DOCUMENTS = markdown_documents()
SEQUENCES = [(name, number, blocks) for name, markdown in DOCUMENTS.items()
             for number, blocks in enumerate(example_sequences(markdown))]  # fmt: skip

# Two of the three ways of running blocks are programs for a fresh interpreter that get
# the blocks as a JSON list in argv[1] and exit non-zero at the first error; the third
# is Python given a file.
PROMPT = """
import code, json, sys

class Prompt(code.InteractiveConsole):
    def showsyntaxerror(self, filename=None, **kwargs):
        super().showsyntaxerror(filename, **kwargs)
        sys.exit(1)

    def showtraceback(self):
        super().showtraceback()
        sys.exit(1)

console = Prompt({"__name__": "__main__"})
for block in json.loads(sys.argv[1]):
    more = False
    for line in block.splitlines() + [""]:        # the reader presses Enter after pasting
        print(("... " if more else ">>> ") + line, flush=True)
        more = console.push(line)
"""

CELL = """
import ast, json, sys

namespace = {"__name__": "__main__"}
for number, cell in enumerate(json.loads(sys.argv[1])):
    body = ast.parse(cell).body
    shown = body[-1:] if body and isinstance(body[-1], ast.Expr) else []
    name = f"<cell {number}>"
    exec(compile(ast.Module(body[: len(body) - len(shown)], []), name, "exec"), namespace)
    if shown:                                      # Jupyter shows the last expression
        exec(compile(ast.Interactive(shown), name, "single"), namespace)
"""

WAYS = ("prompt", "file", "cell")
DEVICES = {"cpu": {}, "emulator": {"MINITORCH_CUDA": "emulator"}}


def run_blocks(way: str, device: str, blocks: list[str], folder: Path) -> subprocess.CompletedProcess:
    """Run ``blocks`` one way in a fresh interpreter, in an empty ``folder`` (examples may
    save files), importing this checkout's minitorch."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("MINITORCH_CUDA", None)
    env.update(DEVICES[device])
    if way == "file":
        (folder / "example.py").write_text("\n".join(blocks), encoding="utf-8")
        command = [sys.executable, "example.py"]
    else:
        command = [sys.executable, "-c", PROMPT if way == "prompt" else CELL, json.dumps(blocks)]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(("document", "number", "blocks"), SEQUENCES,
                         ids=[f"{name}-{number}" for name, number, _ in SEQUENCES])  # fmt: skip
def test_example_runs(document: str, number: int, blocks: list[str], way: str, device: str,
                      tmp_path: Path) -> None:  # fmt: skip
    result = run_blocks(way, device, blocks, tmp_path)
    code = "\n".join(blocks)
    assert result.returncode == 0, (
        f"{document}'s example {number} fails {way} on {device}:\n{code}\n"
        f"{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    )


def test_the_prompt_rejects_what_a_reader_would_see_rejected(tmp_path: Path) -> None:
    """The prompt way is strict where ``>>>`` is: a statement right after a ``for`` block."""
    assert run_blocks("prompt", "cpu", ["for i in range(2):\n    i\nprint(i)"], tmp_path).returncode != 0
    assert run_blocks("prompt", "cpu", ["for i in range(2):\n    i\n\nprint(i)"], tmp_path).returncode == 0
    assert run_blocks("file", "cpu", ["for i in range(2):\n    i\nprint(i)"], tmp_path).returncode == 0
    assert run_blocks("cell", "cpu", ["raise ValueError"], tmp_path).returncode != 0


def test_every_partial_block_says_why() -> None:
    """A ``# not runnable:`` block gives its reason; a ``# continues`` block has one before it."""
    for name, markdown in DOCUMENTS.items():
        blocks = FENCE.findall(markdown)
        for block in blocks:
            first = block.splitlines()[0] if block.strip() else ""
            if first.startswith(NOT_RUNNABLE):
                assert len(first.removeprefix(NOT_RUNNABLE).strip()) > 10, f"{name}: say why: {first!r}"
        assert not (blocks and blocks[0].startswith(CONTINUES)), f"{name}'s first block continues nothing"


def test_readme_has_examples() -> None:
    assert sum(1 for name, _, _ in SEQUENCES if name == "README.md") >= 8
