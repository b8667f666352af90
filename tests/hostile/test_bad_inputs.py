"""The bad-input suite: every case of ``cases.py`` runs in a subprocess, once per CPU
backend, in batches; a crash or hang is reported for exactly the case that caused it (see
``harness.py``). One test per group of cases (a function, or a named group of repros)
and backend lists its failing cases, a line each. ``MINITORCH_HOSTILE_STRICT=1`` reruns
it under ``MALLOC_CHECK_=3`` and ``NUMBA_BOUNDSCHECK=1`` with fewer cases.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from .cases import all_cases, named_cases
from .harness import PYTORCH_ERRORS, STRICT, Case, run_batch, verdict

BACKENDS = ["reference", "numba"]
BATCH = 400 if STRICT else 250  # cases per process: few process starts, few re-runs
WORKERS = 2  # processes at a time
CASES = all_cases(strict=STRICT)
_outcomes: dict = {}


def outcome_of(backend: str, case: Case) -> dict:
    """The case's outcome; all cases of a backend run the first time one is asked."""
    if backend not in _outcomes:
        batches = [CASES[i : i + BATCH] for i in range(0, len(CASES), BATCH)]
        with ThreadPoolExecutor(WORKERS) as pool:
            results = pool.map(lambda batch: run_batch(batch, backend), batches)
            _outcomes[backend] = {key: value for result in results for key, value in result.items()}
    return _outcomes[backend][case.id]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("group", list(dict.fromkeys(case.group for case in CASES)))
def test_bad_inputs(backend, group):
    """Every case of the group returns or raises a PyTorch error type (named repros:
    PyTorch's type). The report has one line per failing case."""
    problems = [f"  {case.code} -> {problem}" for case in CASES if case.group == group
                if (problem := verdict(case, outcome_of(backend, case))) is not None]  # fmt: skip
    if problems:  # a short report: many cases may fail at once
        report = f"{len(problems)} bad inputs of {group} [{backend}]:\n" + "\n".join(problems)
        pytest.fail(report, pytrace=False)


@pytest.mark.parametrize("case", [c for c in named_cases() if c.expect], ids=lambda case: case.id)
def test_named_cases_match_pytorch(case):
    """The expectations in the table are PyTorch's own behaviour (run in this process:
    PyTorch neither crashes nor hangs on them)."""
    namespace = {"mt": torch, "F": torch.nn.functional, "nn": torch.nn, "np": __import__("numpy")}
    try:
        try:
            eval(compile(case.code, "<case>", "eval"), namespace)
        except SyntaxError:
            exec(compile(case.code, "<case>", "exec"), namespace)
    except Exception as error:  # noqa: BLE001 - the type is what is checked
        assert case.expect != "returns", f"PyTorch raises {type(error).__name__}: {error}"
        assert isinstance(error, getattr(__builtins__, case.expect, None) or eval(case.expect)), (
            f"PyTorch raises {type(error).__name__}, the table says {case.expect}: {error}"
        )
        assert case.expect in PYTORCH_ERRORS
    else:
        assert case.expect == "returns", f"PyTorch returns, the table says it raises {case.expect}"
