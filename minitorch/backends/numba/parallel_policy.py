"""When a Numba kernel runs on several threads: a policy that is never much worse than serial.

Threads help a large loop and hurt a small one. Waking Numba's sleeping workers costs
tens of microseconds on a quiet machine; on a busy one (a second notebook, a test run)
a worker may wait milliseconds for a core, and the calling thread waits for it at the
end of the loop (Numba's default "omp" threading layer hands each thread a fixed share).
So a kernel goes parallel only when all three hold::

    work >= THRESHOLDS[primitive]         # enough work per thread to pay for waking them
    cores_for_this_process() >= 2         # e.g. not under `taskset -c 0`
    the parallel path measures faster     # for this kernel, on this machine, right now

The last rule watches the machine instead of guessing: each large call is timed (two
clock reads, nothing next to a call that big), and each kernel keeps the latest time per
unit of work of its serial and its parallel path (``KernelTiming``). While parallel is
faster it is used; when another program takes a core and the parallel path slows down,
the kernel turns serial within a call or two. Every ``PROBE_EVERY`` large calls the
slower path is tried once more, so the kernel notices when the machine is quiet again
(a probe on a busy machine costs one slow call in ``PROBE_EVERY``).

``force("serial")`` / ``force("parallel")`` pin the choice (tests compare both paths),
and ``parallel_calls`` counts the parallel calls per primitive (tests check the
thresholds with it, without timing anything).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Iterator

import numba

# Work (elements; multiply-adds for matmul) below which one thread is always used: waking
# the workers costs more than the loop. From the issue 4 measurements on the 2-core
# development machine (quiet): 2^18 float32 elements is where a parallel add, exp or sum
# first beat one thread by 10%, n = 128 (2^21 multiply-adds) for a square matmul. A scan
# today (`python -m benchmarks.parallel --thresholds`, machine shared, load average 2.5-3)
# was unstable: add and sum crossed at 2^16 in one run and never up to 2^24 in the next,
# which is why the timing rule below decides above the threshold.
ELEMENTWISE_THRESHOLD = 1 << 18
THRESHOLDS = {
    "map": ELEMENTWISE_THRESHOLD,
    "zip": ELEMENTWISE_THRESHOLD,
    "where": ELEMENTWISE_THRESHOLD,
    "reduce": ELEMENTWISE_THRESHOLD,  # elements read
    "arg_reduce": ELEMENTWISE_THRESHOLD,
    "gather": ELEMENTWISE_THRESHOLD,
    "softmax": ELEMENTWISE_THRESHOLD,  # elements read
    "log_softmax_backward": ELEMENTWISE_THRESHOLD,
    "matmul": 1 << 21,
}

PROBE_EVERY = 16  # large calls between two tries of the path that measured slower

_forced: str | None = None  # "serial", "parallel" or None (decide)
# Elementwise work below which ``map`` and ``zip`` (in ``__init__.py``) call their serial
# kernel at once, without asking ``run``: the first rule above, tested by the caller to
# save a Python call on every small op. 0 while ``force()`` pins a path: then every
# call goes through ``run``.
serial_below = ELEMENTWISE_THRESHOLD
parallel_calls: Counter = Counter()  # primitive -> calls that ran the parallel kernel


def cores_for_this_process() -> int:
    """How many cores this process may run threads on: Numba's thread count, limited by
    the CPU affinity (``taskset``, a container's cpuset), which can change at run time."""
    return min(numba.get_num_threads(), len(os.sched_getaffinity(0)))


class KernelTiming:
    """The latest seconds per unit of work of one kernel's serial and parallel paths. Only
    the latest: an average would remember the first parallel call, which also starts the
    thread pool (milliseconds), for many calls after."""

    __slots__ = ("seconds_per_unit", "large_calls")

    def __init__(self) -> None:
        self.seconds_per_unit = {False: 0.0, True: 0.0}  # 0.0: not measured yet
        self.large_calls = 0

    def choose(self) -> bool:
        """Parallel or not for the next large call: untried paths first, then the faster
        one, with the slower one tried again every ``PROBE_EVERY`` calls."""
        self.large_calls += 1
        serial, parallel = self.seconds_per_unit[False], self.seconds_per_unit[True]
        if not parallel or not serial:
            return not parallel  # measure parallel first, then serial
        faster = parallel < serial
        return (not faster) if self.large_calls % PROBE_EVERY == 0 else faster

    def record(self, parallel: bool, seconds: float, work: int) -> None:
        self.seconds_per_unit[parallel] = seconds / work


_timings: dict = {}  # (primitive, op, size class) -> KernelTiming


def run(primitive: str, op: str, work: int, kernels: tuple, args: tuple) -> None:
    """``kernel(*args, chunks)`` for ``work`` units of ``primitive``: ``kernels`` is the
    ``(serial, parallel)`` pair (one kernel twice when it takes both paths itself), and
    ``chunks`` is 1 on the serial path, one piece per thread on the parallel one. Each
    op learns its own speeds per size class (work within a factor of 2)."""
    if _forced is not None:
        parallel = _forced == "parallel"
    elif work < THRESHOLDS[primitive] or cores_for_this_process() < 2:
        kernels[0](*args, 1)
        return
    else:
        key = (primitive, op, work.bit_length())
        timing = _timings.get(key)
        if timing is None:
            timing = _timings[key] = KernelTiming()
        parallel = timing.choose()
        start = time.perf_counter()
        _call(primitive, kernels, args, parallel)
        timing.record(parallel, time.perf_counter() - start, work)
        return
    _call(primitive, kernels, args, parallel)


def _call(primitive: str, kernels: tuple, args: tuple, parallel: bool) -> None:
    if parallel:
        parallel_calls[primitive] += 1
        kernels[1](*args, numba.get_num_threads())
    else:
        kernels[0](*args, 1)


@contextlib.contextmanager
def force(path: str | None) -> Iterator[None]:
    """Inside the block every kernel takes ``path`` ("serial" or "parallel", whatever the
    size; None: decide as usual). For tests that compare the two paths."""
    global _forced, serial_below
    if path not in (None, "serial", "parallel"):
        raise ValueError(f"force() takes 'serial', 'parallel' or None, not {path!r}")
    previous, _forced = _forced, path
    serial_below = ELEMENTWISE_THRESHOLD if path is None else 0
    try:
        yield
    finally:
        _forced = previous
        serial_below = ELEMENTWISE_THRESHOLD if previous is None else 0
