"""Faults on real MPI ranks end with a clear error on the ranks still alive, within the
timeout, never a hang or a wrong sum, and leave no process or shared-memory file behind
(the programs are tests/distributed/programs/faults.py and launched.py; the subprocess
timeout only guards the suite against a hang)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.distributed.mpi_launch import HERE, explain, requires_mpi, run_launcher, run_ranks

pytestmark = requires_mpi
SHM = Path("/dev/shm")


def shared_files() -> set[str]:
    return {p.name for p in SHM.iterdir()} if SHM.is_dir() else set()


def mapped_anywhere(name: str) -> bool:
    """Whether a live process still maps /dev/shm/<name> (then it is not left behind)."""
    for maps in Path("/proc").glob("[0-9]*/maps"):
        try:
            if f"/dev/shm/{name}" in maps.read_text():
                return True
        except OSError:
            continue
    return False


def running(program: str, scenario: str) -> list[str]:
    """Command lines of live processes running ``program`` on ``scenario`` (mpiexec and its
    ranks: the program's path followed by the scenario). Only this scenario's: a test
    checks what its own run left, not what an earlier test's job may still be ending."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        pairs = zip(words, words[1:])
        if any(w.endswith(program.encode()) and arg == scenario.encode() for w, arg in pairs):
            found.append(b" ".join(words).decode(errors="replace"))
    return found


def run_and_check_nothing_left(n: int, scenario: str):
    before = shared_files()
    done = run_ranks("faults.py", n, scenario, timeout=90)
    # mpiexec may return while its last kill lands: the ranks are given time to end first,
    # and only then are their shared-memory files looked for (a rank that is still ending
    # may be between unmapping a file and deleting it)
    deadline = time.monotonic() + 15
    program = str(HERE / "programs" / "faults.py")
    while running(program, scenario) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running(program, scenario), explain(done)
    new = shared_files() - before
    left = [name for name in new if name.startswith("mpich") and not mapped_anywhere(name)]
    assert not left, f"shared-memory files left behind: {left}\n{explain(done)}"
    return done, done.stdout + done.stderr


def test_ranks_that_disagree_all_raise_naming_both_calls():
    done, output = run_and_check_nothing_left(3, "disagree")
    assert done.returncode == 0, explain(done)
    assert output.count("all disagreements reported") == 3, explain(done)
    assert "rank 2 called all_reduce(float32 tensor of shape [4], op=SUM)" in output


def test_a_collective_only_some_ranks_call_times_out_naming_the_absent():
    done, output = run_and_check_nothing_left(2, "absent")
    assert done.returncode != 0, explain(done)
    assert "timed out after 0:00:01: rank [1] never called it" in output, explain(done)
    assert "finished" not in done.stdout, explain(done)


def test_a_caught_timeout_still_ends_the_job_at_exit():
    done, output = run_and_check_nothing_left(2, "caught")
    assert done.returncode != 0, explain(done)
    assert "rank 0: finished caught" in output and "exiting with unfinished communication" in output


def test_a_rank_that_raises_stops_every_other_rank_with_its_error():
    done, output = run_and_check_nothing_left(3, "raises")
    assert done.returncode != 0, explain(done)
    assert "ZeroDivisionError: division by zero" in output, explain(done)
    assert output.count("rank 1 failed: ZeroDivisionError: division by zero") >= 2, explain(done)
    assert "finished" not in done.stdout, explain(done)


def test_a_killed_rank_ends_the_job():
    done, output = run_and_check_nothing_left(2, "killed")
    assert done.returncode != 0, explain(done)
    assert "finished" not in done.stdout, explain(done)


def test_launcher_sets_torchrun_variables_and_runs_the_script_as_main():
    done = run_launcher(2, "tests/distributed/programs/launched.py", "--lr", "0.1")
    assert done.returncode == 0, explain(done)
    for r in (0, 1):
        assert f"rank={r} world_size=2 local_rank={r} argv=['--lr', '0.1'] name=__main__ sum=1" in done.stdout


def test_launcher_ends_the_job_when_a_rank_fails_before_joining():
    done = run_launcher(2, "tests/distributed/programs/launched.py", "fail", timeout=90)
    assert done.returncode != 0, explain(done)
    assert "KeyError: 'rank 1 gives up before init_process_group'" in done.stderr, explain(done)
    assert "sum=" not in done.stdout, explain(done)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX only")
def test_launcher_command_adds_open_mpi_flags_only_for_open_mpi(tmp_path):
    from minitorch.distributed.run import mpiexec_command

    fake = tmp_path / "mpiexec"
    fake.write_text("#!/bin/sh\necho 'mpiexec (OpenRTE) 4.1.6'\necho 'Report bugs to http://www.open-mpi.org/'\n")
    fake.chmod(0o755)
    command = mpiexec_command(512, mpiexec=str(fake))
    assert command[:3] == [str(fake), "-n", "512"] and "--oversubscribe" in command
    assert ("--allow-run-as-root" in command) == (os.geteuid() == 0)
    hydra = tmp_path / "hydra"
    hydra.write_text("#!/bin/sh\necho 'HYDRA build details:'\n")
    hydra.chmod(0o755)
    assert mpiexec_command(512, mpiexec=str(hydra)) == [str(hydra), "-n", "512"]
