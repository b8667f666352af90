"""Every optimizer of the fuzzer's list, compiled against eager, on one program each.

The ``optimizers`` family of ``test_compiled_vs_eager.py`` draws a few of them at random;
here each label runs once (reference backend: bit for bit), so an optimizer whose state
is not replayed (a step count kept as a Python number, a state tensor rebound where the
graph reads the old one, a branch taken in Python) fails by name.
"""

from __future__ import annotations

import pytest

from tests.compiler.fuzz_programs import OPTIMIZERS, TrainingProgram, run

# the optimizers added for issue 31 (the older ones run in the fuzz families already)
NEW = [label for label in OPTIMIZERS if label.split("(")[0] in
       {"Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"}]  # fmt: skip


@pytest.mark.parametrize("label", NEW)
def test_compiled_step_equals_eager_step(label: str) -> None:
    program = TrainingProgram.draw("optimizers", 0)
    program.optimizer, program.backend = label, "reference"
    compiled = run(program)
    assert compiled.graphs, "the step was never captured"
