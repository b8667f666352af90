"""Run bad-input cases in subprocesses and judge each outcome.

A batch of cases runs in one process (``child.py``), which announces every case before
and after running it. So when the process dies or stops moving, the parent knows the
case that was running:

    run_batch(cases):
        start child; for each announced case, wait at most TIMEOUT seconds for its end
        on a hang:  that case "hung"; kill the child; run_batch(the cases after it)
        on a death: the running case is re-run alone -- if it dies alone, it "crashed";
                    if not, the damage came from an earlier case of the batch, so the
                    SEARCH cases before it are re-run one per process
        the cases after the crash: run_batch(them)

A case passes when its code returns or raises a Python exception of a PyTorch type, and,
for the named repros, raises exactly the type PyTorch raises (``Case.expect``).
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

CHILD = str(Path(__file__).with_name("child.py"))
PYTORCH_ERRORS = ("RuntimeError", "ValueError", "TypeError", "IndexError", "NotImplementedError")
INTERNAL_ERRORS = ("RecursionError",)  # a RuntimeError subclass, but never a deliberate one
NUMBA_BOUNDS_MESSAGE = "index is out of bounds"  # an IndexError raised inside a kernel
MEMORY_LIMIT_GB = 8.0
STRICT = os.environ.get("MINITORCH_HOSTILE_STRICT", "") not in ("", "0")
TIMEOUT = 180.0 if STRICT else 20.0  # seconds per case; strict mode first compiles its kernels
STARTUP = 30.0  # seconds to import minitorch in a fresh process
SEARCH = 16  # after a delayed crash, the cases before it that are re-run one by one


@dataclass(frozen=True)
class Case:
    """One hostile call. ``expect``: ``None`` (return or raise any PyTorch error type),
    ``"returns"``, or the name of the builtin exception PyTorch raises."""

    id: str
    code: str
    expect: str | None = None
    group: str = ""  # the test the case is reported in (one per group and backend)


_strict_cache_dir: str | None = None


def child_environment(backend: str) -> dict:
    """The environment of a case process: the backend, and the strict-mode checks."""
    global _strict_cache_dir
    env = dict(os.environ, MINITORCH_CPU_BACKEND=backend, MINITORCH_HOSTILE_MEMORY_GB=str(MEMORY_LIMIT_GB))
    if STRICT:
        if _strict_cache_dir is None:  # kernels compiled with bounds checks stay apart
            _strict_cache_dir = tempfile.mkdtemp(prefix="minitorch-boundscheck-")
            atexit.register(shutil.rmtree, _strict_cache_dir, True)
        env.update(MALLOC_CHECK_="3", NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=_strict_cache_dir)
    return env


def _pump(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _describe_death(returncode: int, stderr: str) -> str:
    how = f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
    tail = " | ".join(line for line in stderr.strip().splitlines()[-4:])
    return f"{how}: {tail}" if tail else how


def _run_once(cases: list[Case], backend: str) -> tuple[dict, str | None, str | None]:
    """One process over ``cases``. Returns (outcomes of finished cases, the id of the
    case that hung or was running at death, a description of the death or None)."""
    process = subprocess.Popen(
        [sys.executable, CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=child_environment(backend),
    )  # fmt: skip
    lines: queue.Queue = queue.Queue()
    errors: list[str] = []
    threading.Thread(target=_pump, args=(process.stdout, lines), daemon=True).start()
    threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True).start()
    process.stdin.write(json.dumps([{"id": c.id, "code": c.code} for c in cases]))
    process.stdin.close()
    outcomes: dict = {}
    running, deadline = None, time.monotonic() + STARTUP + TIMEOUT
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            process.kill()
            process.wait()
            return outcomes, running, None  # a hang (or a stuck start when running is None)
        if line is None:
            break
        if line.startswith("@@start "):
            running, deadline = json.loads(line[len("@@start ") :]), time.monotonic() + TIMEOUT
        elif line.startswith("@@end "):
            report = json.loads(line[len("@@end ") :])
            outcomes[report["id"]] = report["outcome"]
            running = None
    returncode = process.wait()
    if returncode == 0 and len(outcomes) == len(cases):
        return outcomes, None, None
    return outcomes, running, _describe_death(returncode, "".join(errors))


def run_batch(cases: list[Case], backend: str) -> dict:
    """Outcome of every case: ``{"status": "returned" | "raised" | "crashed" | "hung", ...}``."""
    if not cases:
        return {}
    outcomes, culprit, death = _run_once(cases, backend)
    if culprit is None and death is None and len(outcomes) == len(cases):
        return outcomes
    ids = [c.id for c in cases]
    if culprit is None and not outcomes:  # the process never started a case: import failed
        status = "crashed" if death else "hung"
        problem = death or f"no case started within {STARTUP + TIMEOUT:.0f} s"
        return {i: {"status": status, "message": f"at startup: {problem}"} for i in ids}
    unfinished = [i for i in ids if i not in outcomes]
    culprit = culprit or (unfinished[0] if unfinished else ids[-1])  # ids[-1]: died at exit
    if death is None:
        outcomes[culprit] = {"status": "hung", "message": f"no answer within {TIMEOUT:.0f} s"}
    elif len(cases) == 1:
        outcomes[culprit] = {"status": "crashed", "message": death}
    else:  # died: was it the running case alone, or damage left by an earlier one?
        position = ids.index(culprit)
        alone = run_batch([cases[position]], backend)[culprit]
        if alone["status"] == "crashed":
            outcomes[culprit] = alone
        else:
            nearby = cases[max(0, position - SEARCH) : position]
            earlier = [c for c in nearby if run_batch([c], backend)[c.id]["status"] == "crashed"]
            blame = ", ".join(c.id for c in earlier) or "no single case: only in sequence"
            outcomes[culprit] = {"status": "crashed", "message": f"{death} (after {blame})"}
    rest = cases[ids.index(culprit) + 1 :]
    outcomes.update(run_batch(rest, backend))
    return outcomes


def verdict(case: Case, outcome: dict) -> str | None:
    """``None`` when the outcome is acceptable, otherwise what went wrong."""
    status = outcome["status"]
    if status in ("crashed", "hung"):
        return f"{status}: {outcome['message']}"
    if status == "raised":
        mro = [name.removeprefix("builtins.") for name in outcome["mro"]]
        error = f"{outcome['type']}: {outcome['message']}"
        if outcome["type"].startswith("numba") or any(name in INTERNAL_ERRORS for name in mro):
            return f"raised an internal error, {error}"
        if not any(name in PYTORCH_ERRORS for name in mro):
            return f"raised {error}, which is not an exception type PyTorch raises"
        if outcome["message"] == NUMBA_BOUNDS_MESSAGE:
            return f"a kernel read or wrote out of bounds ({error})"
        if case.expect == "returns":
            return f"raised {error}, but PyTorch returns"
        if case.expect is not None and case.expect not in mro:
            return f"raised {error}, but PyTorch raises {case.expect}"
        return None
    if case.expect not in (None, "returns"):
        return f"returned, but PyTorch raises {case.expect}"
    return None
