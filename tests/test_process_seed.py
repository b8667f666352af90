"""Without ``manual_seed`` each process draws different numbers (as in PyTorch); with it,
the same ones. A user's ``Generator()`` starts from PyTorch's fixed default seed."""

from __future__ import annotations

import subprocess
import sys

import minitorch

PROGRAM = "import minitorch; print(minitorch.initial_seed(), minitorch.rand(4).tolist())"
SEEDED = (
    "import minitorch; minitorch.manual_seed(3); print(minitorch.initial_seed(), minitorch.rand(4).tolist())"
)


def _run(program: str) -> str:
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout


def test_each_process_starts_from_a_fresh_seed() -> None:
    assert _run(PROGRAM) != _run(PROGRAM)


def test_manual_seed_makes_processes_agree() -> None:
    first = _run(SEEDED)
    assert first == _run(SEEDED)
    assert first.startswith("3 ")


def test_seed_and_initial_seed() -> None:
    chosen = minitorch.seed()
    assert minitorch.initial_seed() == chosen
    assert 0 <= chosen < 2**63
    assert minitorch.Generator().initial_seed() == 67280421310721
    state = minitorch.default_generator.get_state()
    drawn = minitorch.rand(3)
    minitorch.default_generator.set_state(state)
    assert minitorch.equal(drawn, minitorch.rand(3))
