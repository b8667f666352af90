"""How often the Playground sends its state to the page.

Training and drawing run at their own rates. While playing, Python trains epoch after
epoch and sends the state at most ``MAX_SYNCS_PER_SECOND`` times a second (fewer when a
send is slow: sending never takes more than ``1 / SYNC_SHARE`` of the time, and a big
network's heatmaps go at most ``BYTES_PER_SECOND``), computing the heatmaps only for the
states it sends; the page draws the latest state it has received once per animation
frame. So when epochs run faster than frames, the epochs in between are trained but not
drawn, and the meter ("epochs per second", ``meter.py``) counts every epoch trained over
the last two seconds, starting again whenever play starts or the network is built anew.
"""

from __future__ import annotations

MAX_SYNCS_PER_SECOND = 15
SYNC_SHARE = 8  # sending the state takes at most 1/8 of the time: training keeps the rest
BYTES_PER_SECOND = 4_000_000  # big networks send fewer frames per second


class SendRate:
    """When the next send is due: ``due(now)`` after ``interval`` seconds since the last
    one; ``sent(...)`` works out the next interval from what the last send took."""

    def __init__(self) -> None:
        self.last = 0.0
        self.interval = 1 / MAX_SYNCS_PER_SECOND

    def due(self, now: float) -> bool:
        return now - self.last >= self.interval

    def sent(self, started: float, finished: float, sent_bytes: int) -> None:
        """At most MAX_SYNCS_PER_SECOND, fewer for big frames, and never more than
        1 / SYNC_SHARE of the time spent sending."""
        self.interval = max(1 / MAX_SYNCS_PER_SECOND, sent_bytes / BYTES_PER_SECOND,
                            SYNC_SHARE * (finished - started))  # fmt: skip
        self.last = finished
