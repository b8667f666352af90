"""The subprocess side of the bad-input suite: run cases one after another, report each.

Reads a JSON list of ``{"id": ..., "code": ...}`` from stdin. For every case it prints
``@@start <id>`` before running it and ``@@end <id and outcome>`` after (JSON), flushing each line,
so the parent knows which case was running when the process died or stopped moving::

    for case in cases:
        print("@@start", id)
        try:    eval/exec the code          -> {"status": "returned"}
        except BaseException as error:      -> {"status": "raised", "mro": [...], ...}
        print("@@end", {"id": id, "outcome": outcome})

The CPU backend comes from ``MINITORCH_CPU_BACKEND``; ``MINITORCH_HOSTILE_MEMORY_GB``
caps the address space, so that a huge allocation fails here instead of exhausting the
machine.
"""

from __future__ import annotations

import json
import os
import resource
import sys


def limit_memory() -> None:
    gigabytes = float(os.environ.get("MINITORCH_HOSTILE_MEMORY_GB", "0"))
    if gigabytes > 0:
        limit = int(gigabytes * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run(code: str, namespace: dict) -> dict:
    try:
        try:
            compiled = compile(code, "<case>", "eval")
        except SyntaxError:
            exec(compile(code, "<case>", "exec"), dict(namespace))
        else:
            eval(compiled, dict(namespace))
    except BaseException as error:  # noqa: BLE001 - classifying every error is the point
        kind = type(error)
        return {
            "status": "raised",
            "type": f"{kind.__module__}.{kind.__qualname__}",
            "mro": [f"{k.__module__}.{k.__qualname__}" for k in kind.__mro__],
            "message": str(error)[:300],
        }
    return {"status": "returned"}


def main() -> None:
    limit_memory()
    import numpy as np

    import minitorch as mt
    import minitorch.nn.functional as F  # noqa: N812 - PyTorch's spelling

    namespace = {"mt": mt, "F": F, "nn": mt.nn, "np": np}
    cases = json.load(sys.stdin)
    report = sys.stdout
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - what a case prints is noise
    for case in cases:
        report.write(f"@@start {json.dumps(case['id'])}\n")
        report.flush()
        outcome = run(case["code"], namespace)
        report.write(f"@@end {json.dumps({'id': case['id'], 'outcome': outcome})}\n")
        report.flush()


if __name__ == "__main__":
    main()
