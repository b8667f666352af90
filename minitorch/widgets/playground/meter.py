"""The "epochs per second" meter: how fast training runs while the Playground plays.

The meter counts *epochs trained*, frame by frame, never the epoch *number*: the number
goes back to 0 whenever a setting rebuilds the network (a new activation, a new layer),
and a rate computed from epoch numbers would then be negative for as long as the old
numbers stay in the window (it showed -188 for about a second and a half). Counted
epochs only ever grow, so the rate is never negative::

    restart()           marks (now, 0): a new run or a new network starts here
    record(trained)     after each frame: total += trained; marks (now, total)
    rate()              (total at the newest mark - total at the oldest) / seconds between

Marks older than ``window`` seconds are dropped (the two newest always stay, so a frame
slower than the window still gives a rate). Time comes from a monotonic clock
(``time.monotonic``): it never jumps back when the computer's wall clock is set.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW_SECONDS = 2.0


class EpochMeter:
    """Epochs trained per second over the last ``window`` seconds of play."""

    def __init__(self, window: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.window = window
        self.clock = clock
        self.marks: deque[tuple[float, int]] = deque()  # (time, epochs trained since restart)
        self.total = 0

    def restart(self) -> None:
        """Forget what was measured: play starts, or the network was built anew."""
        self.total = 0
        self.marks.clear()
        self.marks.append((self.clock(), 0))

    def record(self, trained: int) -> None:
        """A frame ended having trained ``trained`` epochs."""
        now = self.clock()
        if not self.marks:  # recorded without a restart: this frame's start is unknown
            self.marks.append((now, 0))
            return
        self.total += max(0, int(trained))
        self.marks.append((now, self.total))
        while len(self.marks) > 2 and now - self.marks[1][0] >= self.window:
            self.marks.popleft()

    def rate(self) -> float | None:
        """Epochs per second, or ``None`` before any time has passed."""
        if len(self.marks) < 2:
            return None
        (first_time, first_total), (last_time, last_total) = self.marks[0], self.marks[-1]
        if last_time <= first_time:
            return None
        return (last_total - first_total) / (last_time - first_time)
