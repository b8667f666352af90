"""Where a first run's compile time goes, kernel by kernel (``first_run.py --kernels N``).

``minitorch.backends.compile_time`` counts all compile time as one number. This adds it
up per kernel instead: Numba announces each compilation of a kernel for one list of
argument types as the event ``"numba:compile"``, and a listener adds the seconds of each
outermost one to that kernel's name. The helpers a kernel calls compile inside it and
count as part of it. Numba compiles one kernel at a time (under its compiler lock), so
one depth counter is enough. Kernels compiled for threads (``prange``) are marked
"(threads)".
"""

from __future__ import annotations

import time
from collections import Counter

seconds: Counter = Counter()  # kernel name -> seconds spent compiling it
compilations: Counter = Counter()  # kernel name -> how many times it was compiled


def install() -> None:
    """Start counting (before the first kernel is called)."""
    from numba.core import event

    class KernelClock(event.Listener):
        depth, started = 0, 0.0

        def on_start(self, _event: event.Event) -> None:
            if self.depth == 0:
                self.started = time.perf_counter()
            self.depth += 1

        def on_end(self, compiled: event.Event) -> None:
            self.depth -= 1
            if self.depth == 0:
                kernel = compiled.data["dispatcher"]
                name = kernel.py_func.__qualname__.replace("<locals>.", "")
                name += " (threads)" if kernel.targetoptions.get("parallel") else ""
                seconds[name] += time.perf_counter() - self.started
                compilations[name] += 1

    event.register("numba:compile", KernelClock())


def report() -> None:
    """Print one ``KERNEL_SECONDS <seconds> <compilations> <name>`` line per kernel, the
    costliest first (``first_run.py`` reads them from the process's output)."""
    for name, spent in seconds.most_common():
        print("KERNEL_SECONDS", spent, compilations[name], name, flush=True)
