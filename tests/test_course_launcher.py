"""The README's first command, ``python -m minitorch.course``, as root and as anyone
else, without starting Jupyter: as root (a container, a fresh VM) JupyterLab exits at
once unless given ``--allow-root``, so the launcher adds it and says why."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from minitorch.course import launcher

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def test_readme_first_command_is_the_launcher() -> None:
    bash = re.search(r"```bash\n(.*?)```", README.read_text(), re.S).group(1)
    first = next(line for line in bash.splitlines() if line.strip() and not line.startswith("#"))
    assert first.strip() == 'pip install -e ".[course]" && python -m minitorch.course'


def test_command_as_root_adds_allow_root_once() -> None:
    folder = ROOT / "notebooks"
    plain = [sys.executable, "-m", "jupyter", "lab", str(folder)]
    assert launcher.jupyter_command(folder, root=False) == plain
    assert launcher.jupyter_command(folder, root=True) == [
        sys.executable, "-m", "jupyter", "lab", str(folder), "--allow-root",
    ]  # fmt: skip
    given = launcher.jupyter_command(folder, ["--port", "8890", "--allow-root"], root=True)
    assert given.count("--allow-root") == 1 and given[-3:] == ["--port", "8890", "--allow-root"]


@pytest.mark.parametrize("user_id", [0, 1000])
def test_main_runs_jupyter_lab_with_allow_root_only_as_root(monkeypatch, capsys, user_id: int) -> None:
    ran: list[list[str]] = []
    monkeypatch.setattr(launcher.os, "geteuid", lambda: user_id, raising=False)
    monkeypatch.setattr(launcher.importlib.util, "find_spec", lambda name: object())  # "installed"
    monkeypatch.setattr(launcher.subprocess, "call", lambda command: ran.append(command) or 0)
    assert launcher.main(["--port", "8890"]) == 0
    (command,) = ran
    assert command[:5] == [sys.executable, "-m", "jupyter", "lab", str(ROOT / "notebooks")]
    assert command[5:7] == ["--port", "8890"]
    assert ("--allow-root" in command) == (user_id == 0)
    told = capsys.readouterr().err
    assert ("JupyterLab refuses to start as root" in told) == (user_id == 0)
    assert shlex.join(command) in told  # the command is shown before it runs
    assert launcher.main(["my_notes", "--port=8890"]) == 0  # another folder first
    assert ran[1][4:6] == ["my_notes", "--port=8890"]


def test_without_jupyterlab_it_says_what_to_install(monkeypatch, capsys) -> None:
    monkeypatch.setattr(launcher.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(launcher.subprocess, "call", lambda command: pytest.fail("must not run"))
    assert launcher.main([]) == 1
    assert 'pip install -e ".[course]"' in capsys.readouterr().err
    assert launcher.main(["--help"]) == 0  # the usage, from the module's docstring
    assert "python -m minitorch.course" in capsys.readouterr().out


def test_python_m_minitorch_course_prints_the_command_for_this_user() -> None:
    """The real entry point, in a fresh process, as whoever runs the tests."""
    result = subprocess.run([sys.executable, "-m", "minitorch.course", "--print-command"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    command = shlex.split(result.stdout.strip())
    assert command[1:4] == ["-m", "jupyter", "lab"] and Path(command[4]) == ROOT / "notebooks"
    assert ("--allow-root" in command) == launcher.is_root()
