"""Play / pause: train frame after frame without freezing the notebook.

Training runs in the Python kernel, but the kernel must keep answering the page while
it trains: the pause button, a slider moved, a weight edited all arrive as messages
that the kernel handles *between* other work. So ``play`` must not be a loop that
blocks until training ends. There are two ways to run frames in the background:

* **In Jupyter** the kernel already runs an asyncio event loop (``kernel_loop``). ``Player`` adds a task
  to it that trains one frame, then ``await asyncio.sleep(0)``: that hands control back
  to the loop, which reads the page's waiting messages (if any) before the next frame,
  without waiting a moment longer than that. One thread: no locks needed between
  training and message handlers.
* **In a plain script** (or anywhere without a running loop) it starts a daemon thread
  that does the same, sleeping a moment between frames so the main thread runs too.
  Callers guard shared state with a lock; ``wait()`` blocks until the run ends.

``frame()`` is the caller's function: it trains a little, and returns ``False`` to stop.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable

PAUSE_BETWEEN_FRAMES = 0.001  # seconds the training thread sleeps per frame (thread mode)


def kernel_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop of the Jupyter kernel we are inside, else ``None``.

    Only a kernel's loop is sure to keep running after ``play()`` returns: other code
    may also have a loop marked "running" in this thread (Playwright's sync API does)
    that does nothing while we wait, so a task there would never run.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return loop if getattr(shell, "kernel", None) is not None else None


class Player:
    """Calls ``frame()`` again and again in the background until it returns ``False``
    or ``stop()`` is called; then calls ``on_stop()`` once."""

    def __init__(self, frame: Callable[[], bool], on_stop: Callable[[], None]) -> None:
        self.frame = frame
        self.on_stop = on_stop
        self.running = False
        self._run_number = 0  # a run continues only while it is the latest one
        self._task: asyncio.Task | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Start playing; returns ``"asyncio"`` or ``"thread"`` (how it runs)."""
        if self.running:
            return "asyncio" if self._task is not None else "thread"
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()  # a stopped run finishes its last frame first
        self.running = True
        self._run_number += 1
        loop = kernel_loop()
        if loop is not None:
            self._task = loop.create_task(self._run_async(self._run_number))
            return "asyncio"
        self._thread = threading.Thread(target=self._run_thread, args=(self._run_number,),
                                        name="playground", daemon=True)  # fmt: skip
        self._thread.start()
        return "thread"

    def stop(self) -> None:
        """Ask the run to end after the current frame."""
        self.running = False

    def wait(self, timeout: float | None = None) -> bool:
        """Block until a run in a thread ends (``True`` if it did within ``timeout``).
        A run in the event loop cannot be waited for from the loop's own thread."""
        thread = self._thread
        if thread is None:
            return not self.running
        thread.join(timeout)
        return not thread.is_alive()

    def _current(self, number: int) -> bool:
        return self.running and number == self._run_number

    async def _run_async(self, number: int) -> None:
        try:
            while self._current(number) and self._safe_frame():
                await asyncio.sleep(0)  # the loop handles what is waiting, then we go on
        finally:
            self._finish(number)

    def _run_thread(self, number: int) -> None:
        try:
            while self._current(number) and self._safe_frame():
                time.sleep(PAUSE_BETWEEN_FRAMES)
        finally:
            self._finish(number)

    def _safe_frame(self) -> bool:
        try:
            return bool(self.frame())
        except Exception:  # the caller's frame reports its own errors; never loop on one
            return False

    def _finish(self, number: int) -> None:
        if number != self._run_number:
            return  # a newer run has started: it owns ``running`` now
        self.running = False
        self._task = None
        self.on_stop()
