"""The warm-up (``minitorch/course/warm_up.py``): a background process fills Numba's
disk cache with the course's kernels, so a notebook's first calls load them instead of
compiling. It runs once per cache, never twice at a time, and never when
``MINITORCH_WARM_UP=0`` (as in this suite: ``tests/conftest.py``).

The end-to-end test runs two fresh processes that share a temporary, initially empty
``NUMBA_CACHE_DIR``: the warm-up (with one small lesson, to keep the suite short), then a
program that uses the same kernels and must compile none of them.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

import minitorch  # noqa: E402
from minitorch.course import notebook_setup, warm_up, warm_up_lessons  # noqa: E402

PROGRAM = "import minitorch; x = minitorch.ones(3) + 1; print((x * 2).sum().item())"
WARM_UP_WITH_ONE_LESSON = (
    "import minitorch\n"
    "from minitorch.course import warm_up, warm_up_lessons\n"
    "def lesson():\n"
    "    x = minitorch.ones(3) + 1\n"
    "    (x * 2).sum().item()\n"
    "warm_up_lessons.LESSONS = (lesson,)\n"
    "warm_up.main()\n"
)


def run_fresh(code: str, cache_dir) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), MINITORCH_CPU_BACKEND="numba")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True, timeout=600)  # fmt: skip


@pytest.fixture
def marker(tmp_path, monkeypatch):
    """The marker of a cache of this test's own (it is named after ``NUMBA_CACHE_DIR``);
    removed afterwards with its lock file."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    path = warm_up.marker_path()
    yield path
    for leftover in (path, path.with_name(path.name + ".lock")):
        leftover.unlink(missing_ok=True)


def test_after_the_warm_up_a_program_loads_every_kernel_it_needs_and_compiles_none(tmp_path, marker):
    assert not marker.exists()
    cold = run_fresh(WARM_UP_WITH_ONE_LESSON, tmp_path)
    assert "minitorch: compiling" in cold.stderr  # the warm-up compiled them
    assert marker.exists() and warm_up.marker_path(str(tmp_path)) == marker
    after = run_fresh(PROGRAM, tmp_path)
    assert float(after.stdout) == 12.0
    assert "compiling" not in after.stderr  # every kernel came from the disk cache
    again = run_fresh(WARM_UP_WITH_ONE_LESSON, tmp_path)  # this cache is warm: nothing to do
    assert "compiling" not in again.stderr


def test_the_warm_up_runs_once_per_cache_and_never_beside_another(marker, monkeypatch):
    ran = []
    monkeypatch.setattr(warm_up_lessons, "run_lessons", lambda: ran.append(True))
    monkeypatch.setattr(os, "nice", lambda increment: 0)  # (this test process keeps its priority)
    with open(f"{marker}.lock", "a") as lock:  # another warm-up is running
        fcntl.flock(lock, fcntl.LOCK_EX)
        warm_up.main()
    assert ran == [] and not marker.exists()
    warm_up.main()
    assert ran == [True] and marker.exists()
    warm_up.main()  # done for this cache: not again
    assert ran == [True]
    monkeypatch.setenv("MINITORCH_WARM_UP", "1")
    assert warm_up.start_in_background() is None  # the marker says done: no process


def test_no_warm_up_starts_when_it_is_turned_off(marker, monkeypatch):
    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda *args, **kwargs: started.append(args))
    monkeypatch.setenv("MINITORCH_WARM_UP", "0")
    assert warm_up.start_in_background() is None and started == []
    monkeypatch.setenv("MINITORCH_WARM_UP", "1")
    warm_up.start_in_background()
    [(command,)] = started
    assert command[-2:] == ["-m", "minitorch.course.warm_up"]


@pytest.mark.parametrize("backend, starts", [("reference", True), ("numba", False)])
def test_a_chapter_on_the_reference_backend_starts_it_for_the_numba_chapters(backend, starts, monkeypatch):
    calls = []
    monkeypatch.setattr(warm_up, "start_in_background", lambda: calls.append(True))
    before = minitorch.get_backend("cpu")
    try:
        notebook_setup.setup(backend=backend, gpu=False, quiet=True)
    finally:
        minitorch.set_backend("cpu", before)
    assert calls == ([True] if starts else [])


def test_a_reference_chapter_names_the_warm_up_without_loading_the_numba_kernels():
    # The marker's name holds the kernels' source checksum; reading it must not import the
    # Numba backend (0.3-0.4 s) in a chapter that never runs it.
    program = (
        "import sys, minitorch\n"
        "minitorch.set_backend('cpu', 'reference')\n"
        "from minitorch.course import warm_up\n"
        "print(warm_up.marker_path().name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('minitorch.backends.numba')))"
    )
    env = dict(os.environ, MINITORCH_WARM_UP="0")
    lines = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True,
                           check=True).stdout.split("\n")  # fmt: skip
    assert lines[0] == warm_up.marker_path().name and lines[1] == "[]"


def test_every_lesson_runs():
    """The warm-up's output is discarded, so a lesson broken by an API change would fail
    silently, and only make first runs slow again: run them here."""
    before = minitorch.get_backend("cpu")
    try:
        warm_up_lessons.run_lessons()
    finally:
        minitorch.set_backend("cpu", before)
    assert minitorch.get_backend("cpu") == before


def test_the_course_launcher_starts_it_before_jupyterlab_opens(monkeypatch, capsys):
    from minitorch.course import launcher

    happened = []
    monkeypatch.setattr(launcher.importlib.util, "find_spec", lambda name: object())  # "installed"
    monkeypatch.setattr(warm_up, "start_in_background", lambda: happened.append("warm-up") or object())
    monkeypatch.setattr(launcher.subprocess, "call", lambda command: happened.append("jupyter lab") or 0)
    assert launcher.main([]) == 0
    assert happened == ["warm-up", "jupyter lab"]
    assert "in the background (once)" in capsys.readouterr().err
