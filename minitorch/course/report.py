"""How a homework check talks to a student.

Every checker in ``minitorch.course`` follows the same recipe:

1. build many cases (small shapes, non-contiguous views, stride-0 broadcasts, offsets);
2. run the student's code and the reference on each case;
3. stop at the *first* disagreement and explain it in plain words: which case, what was
   expected, what came back, and (when we can guess it) the likely mistake;
4. when everything agrees, print one line saying how many cases passed.

A function whose body still raises ``NotImplementedError`` is *not done yet*: the check
prints a friendly reminder instead of failing, so a student can "Run all" on a fresh
exercise notebook and see exactly which exercises are left.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

_PACKAGE = str(Path(__file__).resolve().parent.parent)  # frames inside minitorch are ours


class CheckFailed(AssertionError):
    """The student's code disagrees with the reference; the message says where and why."""


class NotDoneYet(Exception):
    """The student's code still raises ``NotImplementedError``."""


class CheckResult:
    """What a check returns: true when it passed. Shows nothing as a cell's result (the
    check already printed its line)."""

    def __init__(self, passed: bool, summary: str) -> None:
        self.passed = passed
        self.summary = summary

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"CheckResult(passed={self.passed})"

    def _ipython_display_(self) -> None:
        pass


def checker(function: Callable[..., str]) -> Callable[..., CheckResult]:
    """Turn ``function`` (which returns a one-line summary) into a homework check: prints
    a pass line or a not-done-yet line, or raises ``CheckFailed``."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> CheckResult:
        __tracebackhide__ = True  # IPython and pytest: show the message, not our frames
        try:
            summary = function(*args, **kwargs)
        except NotDoneYet as reminder:
            print(f"… not done yet: {reminder}")
            return CheckResult(False, str(reminder))
        print(f"✓ {summary}")
        return CheckResult(True, summary)

    return run


def call_student(name: str, student: Callable, *args: Any, case: str = "", allowed: tuple = ()) -> Any:
    """Call the student's function; turn its exceptions into explanations. Exceptions
    of the ``allowed`` types are passed on unchanged (for cases that must raise)."""
    __tracebackhide__ = True
    try:
        return student(*args)
    except NotImplementedError as error:
        raise NotDoneYet(
            f"`{name}` still raises NotImplementedError. Write its body in the cell above, "
            "run that cell, then run this check again."
        ) from error
    except CheckFailed:
        raise
    except allowed:
        raise
    except Exception as error:  # noqa: BLE001 (any bug in student code is explained)
        where = _student_line(error)
        raise CheckFailed(
            f"`{name}` raised {type(error).__name__}: {error}\n"
            f"  on this case: {case}\n"
            f"{where}"
            "  A correct solution runs without errors on every valid input."
        ) from None


def _student_line(error: BaseException) -> str:
    """The last line of the traceback that is in the student's own code, if any."""
    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if not str(Path(f.filename).resolve()).startswith(_PACKAGE)]
    if not mine:
        return ""
    frame = mine[-1]
    return f"  it happened in `{frame.name}`, at: {frame.line}\n"


def fail(what: str, case: str, expected: Any, got: Any, hint: str = "") -> CheckFailed:
    """Build the exception for the first wrong answer (the caller raises it)."""
    message = (
        f"{what} is wrong on this case:\n  {case}\n  expected: {show(expected)}\n  got:      {show(got)}"
    )
    if hint:
        message += f"\n  hint: {hint}"
    return CheckFailed(message)


def show(value: Any) -> str:
    """A short, readable rendering of a value for a failure message."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=4, threshold=40, edgeitems=3)
        return text.replace("\n", "\n            ")
    if isinstance(value, list) and len(value) > 30:
        return f"[{', '.join(map(str, value[:12]))}, ... ({len(value)} items)]"
    return repr(value)


def describe_layout(shape: tuple, strides: tuple, offset: int) -> str:
    """``shape (2, 3), strides (1, 2), offset 0`` plus what kind of view that is."""
    kinds = []
    if any(s == 0 for s, n in zip(strides, shape) if n > 1):
        kinds.append("broadcast: a stride is 0")
    expected = 1
    contiguous = True
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            contiguous = False
        expected *= size
    if not contiguous and not kinds:
        kinds.append("non-contiguous")
    if offset:
        kinds.append("starts at an offset")
    kind = f" ({', '.join(kinds)})" if kinds else " (contiguous)"
    return f"shape {tuple(shape)}, strides {tuple(strides)}, offset {offset}{kind}"
