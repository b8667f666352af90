"""Differential fuzzing: random training programs, compiled and eager, must agree.

Each family (``FAMILIES`` in ``fuzz_programs.py``) varies one thing a compiled training
step must get right: every optimizer and its options; ``zero_grad`` inside the step,
outside it (``set_to_none`` True or False) or never (gradients accumulate); ``opt.step()``
outside; modules switched between ``train()`` and ``eval()``; a parameter frozen with
``requires_grad_(False)``; Python number arguments (fixed, and new on every call); every
order of the passes; calls from two threads; calls on two CUDA emulator streams.
``everything`` draws all of them at once (but the families still marked open below).
A program runs ``STEPS`` calls compiled and eagerly from one deep-copied start; losses,
parameters, buffers, ``.grad`` and optimizer state are compared after every call (bit
for bit on the reference backend, to ``NUMBA_TOLERANCE`` on numba: the note there says why).

Default: ``SEEDS`` programs per family (about a minute on a loaded two-core machine).
Long mode: ``MINITORCH_FUZZ=long`` (20x) or ``MINITORCH_FUZZ=N`` (N times as many), the
switch every fuzz test here shares (``tests/hostile/budget.py``). A failure names the seed,
the program in words and the command that runs it alone:
``python -m tests.compiler.fuzz_programs FAMILY SEED``.
"""

from __future__ import annotations

import itertools

import pytest

from minitorch.compiler.passes import PASSES
from tests.compiler.fuzz_programs import FAMILIES, Mismatch, TrainingProgram, run
from tests.hostile.budget import fuzz_count

SEEDS = fuzz_count(5)  # programs per family

# Families whose programs still differ from eager, as family -> reason: each becomes a
# strict xfail (once fixed, the xfail itself fails) and ``everything`` leaves it out. Empty
# since issue 29's fixes (optimizer state, zero_grad outside, accumulated .grad, train and
# eval, freezing, pass order, threads, streams: every family failed before them).
OPEN: dict[str, str] = {}


def _while_open(name: str):
    """A strict xfail while ``name`` is in ``OPEN``: once fixed, the xfail itself fails."""
    return pytest.mark.xfail(name in OPEN, strict=True, reason=OPEN.get(name, ""), raises=Mismatch)


def _compare(programs: list[TrainingProgram], what: str) -> None:
    """Run every program compiled and eagerly; one Mismatch for all that differ."""
    failures, captured = [], 0
    for program in programs:
        if program.caller == "streams":
            from minitorch.backends import cuda_emulator

            if not cuda_emulator.is_available():
                pytest.skip(cuda_emulator.unavailable_reason())
        try:
            compiled = run(program)
        except Mismatch as mismatch:
            failures.append(str(mismatch))
            continue
        captured += bool(compiled.graphs)
    if failures:
        first = failures[0]
        raise Mismatch(f"{len(failures)} of {len(programs)} {what} differ from eager, the first:\n{first}")
    # Not a vacuous pass: programs that all ran eagerly would test nothing.
    assert captured > 0, f"none of the {what} captured a graph"


FAMILY_TESTS = [pytest.param(name, marks=_while_open(name)) for name in FAMILIES if name != "everything"]


@pytest.mark.parametrize("family", FAMILY_TESTS)
def test_compiled_training_programs_equal_eager(family):
    _compare([TrainingProgram.draw(family, seed) for seed in range(SEEDS)], f"{family} programs")


def test_programs_mixing_every_feature_equal_eager():
    # the families still open are left out: their failures would hide any new one
    programs = [TrainingProgram.draw("everything", seed, tuple(OPEN)) for seed in range(2 * SEEDS)]
    _compare(programs, "mixed programs")


ORDERS = list(itertools.permutations(PASSES))


@_while_open("pass_orders")
def test_every_order_of_the_passes_keeps_a_training_step():
    # One program per order (all 120 in the long mode; a spread of them by default).
    count = min(len(ORDERS), fuzz_count(12))
    programs = []
    for i in range(count):
        program = TrainingProgram.draw("baseline", 1000 + i)
        program.passes, program.backend = list(ORDERS[i * len(ORDERS) // count]), "reference"
        programs.append(program)
    _compare(programs, "pass orders")
