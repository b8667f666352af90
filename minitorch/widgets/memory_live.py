"""How the memory viewer keeps up with the allocator: live, and frame by frame.

**Live** (``Follower``). A notebook cell runs in the kernel's main thread, and the
widget must redraw *while* it runs, so a second thread watches: ten times a second it
reads two counters (allocated and reserved bytes, cheap) and, only when they changed,
looks at the allocator again and sends the new picture (ipywidgets may be updated from
any thread). Nothing is added to the cost of an op. After each cell it looks once more,
for what no counter shows: a new name, a new view of an old storage.

The second thread names blocks only by the tensors found before (``find_new=False``):
it never asks the garbage collector for objects. A thread that does can catch a tuple
the main thread is still building (``tuple(generator)`` grows a tracked tuple, and
CPython refuses to grow one that anything else holds): the student's cell would fail
with ``SystemError: bad argument to internal function``. So a tensor made by the
running cell leaves its block ``pending`` ("new: named when the cell ends"), and the
look after the cell, in the main thread, finds it.

**Recorded** (``Recorder``). ``with mem.record():`` must see *every* allocation and free,
in order, which no timer can. Python calls a *profile function* (``sys.setprofile``) at
every function call and return of the thread; ours waits for the allocator's
``allocate`` or ``release`` to return, and makes a frame when the allocated bytes
changed. It slows the block down a little (one cheap Python call per function call), so
it is on only inside the block.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import weakref
from collections.abc import Iterator
from typing import Any

from minitorch import cuda, dispatch
from minitorch import memory as cpu_memory

SECONDS_BETWEEN_CHECKS = 0.1  # live: at most ten looks a second
STOP_WAIT_SECONDS = 10.0  # stop() waits this long at most for a look under way
MAX_FRAMES = 2000  # record mode keeps at most this many frames
ALLOCATOR_ENTRIES = frozenset({"allocate", "release"})  # the functions whose return may change memory


def memory_api(device: str) -> Any:
    """Where ``device``'s allocator functions are: ``minitorch.memory`` for the CPU,
    ``minitorch.cuda`` for the GPU or its emulator (as in PyTorch's ``torch.cuda``)."""
    if device not in ("cpu", "cuda"):
        raise ValueError(f"the memory viewer shows device 'cpu' or 'cuda', not {device!r}")
    return cpu_memory if device == "cpu" else cuda


def byte_counts(device: str) -> dict[str, int]:
    """Allocated and reserved bytes now, and the peak of allocated bytes (from one
    ``memory_stats()``: each call takes the allocator's lock and counts its blocks)."""
    stats = memory_api(device).memory_stats()
    return {"allocated": stats["allocated_bytes.all.current"],
            "reserved": stats["reserved_bytes.all.current"],
            "peak": stats["allocated_bytes.all.peak"]}  # fmt: skip


def counters(device: str) -> tuple[int, int]:
    """What the live thread compares: allocated and reserved bytes."""
    counts = byte_counts(device)
    return counts["allocated"], counts["reserved"]


class Follower:
    """The thread that redraws a memory viewer when the allocator changes."""

    def __init__(self, widget: Any) -> None:
        self.widget = weakref.ref(widget)  # a closed, forgotten widget ends the thread
        self.device = widget.device
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, name="minitorch memory viewer", daemon=True)
        self.ipython = _ipython()

    def start(self) -> None:
        self.thread.start()
        if self.ipython is not None:
            self.ipython.events.register("post_run_cell", self.after_cell)

    def stop(self) -> None:
        """Stop, and wait for a look under way: after ``stop()`` the widget is still."""
        self.stopped.set()
        if self.ipython is not None:
            with contextlib.suppress(ValueError):  # (already unregistered)
                self.ipython.events.unregister("post_run_cell", self.after_cell)
        if self.thread.is_alive() and threading.current_thread() is not self.thread:
            self.thread.join(timeout=STOP_WAIT_SECONDS)

    def run(self) -> None:
        seen = counters(self.device)
        while not self.stopped.wait(SECONDS_BETWEEN_CHECKS):
            now = counters(self.device)
            widget = self.widget()
            if widget is None:
                return
            try:
                if now != seen and widget.look_if_free():
                    seen = now
            except Exception:  # (the cell changed a namespace under us: look next time)
                pass
            del widget

    def after_cell(self, *_result: Any) -> None:
        widget = self.widget()
        if widget is not None:
            widget.refresh(everything=False)


class Recorder:
    """Makes a frame (``widget.look()``) at each allocation and free of this thread."""

    def __init__(self, widget: Any, frames: list[dict]) -> None:
        self.widget = widget
        self.frames = frames
        self.allocated = memory_api(widget.device).memory_allocated()
        self.phase = ""  # the last phase an op named (frees happen between ops too)
        # The block's own peak: the allocator's peak counts since the start (or the last
        # reset_peak_memory_stats()), so "peak" in a frame would be an earlier cell's.
        self.process_peak = frames[0]["peak"]
        self.peak = 0
        self.block_peak(frames[0])

    def block_peak(self, frame: dict) -> None:
        """Make ``frame["peak"]`` the most bytes allocated since the block began: the
        most any frame saw (every allocation makes one), or the allocator's peak once it
        grew past where it stood at the start (then the block made it)."""
        grown = frame["peak"] if frame["peak"] > self.process_peak else 0
        self.peak = max(self.peak, frame["allocated"], grown)
        frame["peak"], frame["peak_of"] = self.peak, "block"

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """Make frames while the block runs (the profile function is this thread's)."""
        if sys.getprofile() is not None:
            raise RuntimeError(
                "mem.record() needs Python's profile hook (sys.setprofile), and a profiler "
                "(cProfile?) is using it: record outside the profiler"
            )
        sys.setprofile(self.on_event)
        try:
            yield
        finally:
            sys.setprofile(None)

    def on_event(self, frame: Any, event: str, _arg: Any) -> None:
        """Python's profile call: ``frame`` is the function calling or returning. On the
        return of an allocator's ``allocate`` or ``release`` (its ``self``), compare the
        allocated bytes. ``release`` runs when a storage dies, which can happen *inside*
        the allocator (the garbage collector runs in the middle of an allocation): then
        this thread holds the allocator's lock, reading the counters would wait for it
        forever, and the next event counts this free instead."""
        if event != "return" or frame.f_code.co_name not in ALLOCATOR_ENTRIES:
            return
        allocator = frame.f_locals.get("self")
        if type(allocator).__name__ != "CachingAllocator" or allocator.device != self.widget.device:
            return
        if not allocator.lock.acquire(blocking=False):
            return
        allocator.lock.release()
        now = memory_api(self.widget.device).memory_allocated()
        if now != self.allocated:
            self.frame(now - self.allocated)
            self.allocated = now

    def frame(self, change: int | None = None) -> None:
        """Add a frame: ``change`` bytes were allocated (> 0) or freed (< 0); ``None``
        for the frame at the end of the block."""
        if len(self.frames) >= MAX_FRAMES:
            self.frames[-1]["event"] = f"recording stopped after {MAX_FRAMES} frames"
            return
        stack = dispatch.thread_state.op_stack
        op, self.phase = stack[-1] if stack else ("", self.phase)
        if change is None:
            event = "end of the block"
        else:
            what = f"+{bytes_text(change)} allocated" if change > 0 else f"-{bytes_text(-change)} freed"
            event = what + (f" in {op} ({self.phase})" if op else f" ({self.phase})" if self.phase else "")
        self.frames.append(self.widget.look(event=event, phase=self.phase, everything=False))
        self.block_peak(self.frames[-1])
        name_unheld(self.frames[-2], self.frames[-1])


def name_unheld(earlier: dict, later: dict) -> None:
    """A tensor is made just *after* its block is allocated, so the frame of the
    allocation finds no holder yet: give it the holders the next frame found for the
    same block (allocated in both frames: the same allocation, since every free makes a
    frame)."""
    holders = {b["address"]: b["holders"] for s in later["segments"] for b in s["blocks"] if b["allocated"]}
    for segment in earlier["segments"]:
        for block in segment["blocks"]:
            if block["allocated"] and not block["holders"]:
                block["holders"] = holders.get(block["address"], [])


def bytes_text(count: int) -> str:
    """``1536`` -> ``1.50 KiB`` (as ``bytesText`` in ``widgets/memory.js``)."""
    value, unit = float(count), 0
    units = ["B", "KiB", "MiB", "GiB"]
    while abs(value) >= 1024 and unit < len(units) - 1:
        value, unit = value / 1024, unit + 1
    return f"{count} B" if unit == 0 else f"{value:.2f} {units[unit]}"


def peak_text(state: dict) -> str:
    """``peak 768.00 KiB`` live (since the start), ``peak in the recording 205.50 KiB``
    for a recorded frame (since the block began: ``Recorder.block_peak``)."""
    where = " in the recording" if state.get("peak_of") == "block" else ""
    return f"peak{where} {bytes_text(state['peak'])}"


def _ipython() -> Any:
    """The running IPython shell (to hear when a cell ends), or None outside one."""
    shell = sys.modules.get("IPython")
    return shell.get_ipython() if shell is not None else None
