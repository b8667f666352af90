"""Playwright in a thread of its own, for the Playground's browser tests.

Playwright's sync API refuses to start in a thread where an asyncio event loop is
running, and the widgets tests' Playwright (``tests/browser/conftest.py``) keeps its
loop marked running in pytest's thread for the whole session. So that both test
folders can run in one session, the Playground's Chromium is driven from another
thread: ``BrowserThread.run(function, *args)`` runs a function there and returns its
result (or raises its exception) here, and ``@in_browser`` runs a whole test body there.
"""

from __future__ import annotations

import functools
import queue
import threading
from collections.abc import Callable
from typing import Any


class BrowserThread:
    """Playwright in a thread of its own, running the functions it is given.

    Playwright's sync API refuses to start in a thread where an event loop runs, and
    the widgets tests' Playwright (``tests/browser/conftest.py``) keeps its loop marked
    running in pytest's thread for the whole session. So when both test folders run in
    one session, ours lives in another thread, and every Playwright call goes through
    ``run(function, *args)``, which returns its result or raises its exception here.
    """

    def __init__(self) -> None:
        self.calls: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._serve, name="playwright", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright:
                self.playwright = playwright
                self._answer_calls()
        except BaseException as error:  # noqa: BLE001 - Playwright did not start: say why
            self._answer_calls(failure=error)

    def _answer_calls(self, failure: BaseException | None = None) -> None:
        while (call := self.calls.get()) is not None:
            function, args, answer = call
            if failure is not None:
                answer.put((False, failure))
                continue
            try:
                answer.put((True, function(*args)))
            except BaseException as error:  # noqa: BLE001 - handed back to the test
                answer.put((False, error))

    def run(self, function: Callable[..., Any], *args: Any) -> Any:
        answer: queue.Queue = queue.Queue()
        self.calls.put((function, args, answer))
        ok, value = answer.get()
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        self.calls.put(None)
        self.thread.join(60)


def in_browser(check: Callable[[Any], None]) -> Callable[[Any], None]:
    """Decorate a browser test: its body runs in the browser's thread."""

    @functools.wraps(check)
    def test(playground_lab: Any) -> None:
        playground_lab.run(check, playground_lab)

    return test
