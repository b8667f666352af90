"""First run: what a fresh Numba cache costs each course chapter, beside its warm time.

Every Colab session, and every fresh clone, starts with an empty Numba cache: each kernel a
chapter uses is compiled on its first call. This runs every course chapter (``notebooks/``,
headless, as ``tests/course`` does) and a typical training script (``examples/digits_mlp.py``,
two epochs) twice, each in a fresh process: first with ``NUMBA_CACHE_DIR`` pointed at a new,
empty folder (cold), then again with the cache that run filled (warm)::

    python -m benchmarks.first_run                       # every chapter and the script
    python -m benchmarks.first_run --only 04 07 digits   # names containing any of these
    python -m benchmarks.first_run --repeat 2            # the faster of 2 cold and 2 warm runs

    python -m benchmarks.first_run --kernels 5          # and the 5 kernels that cost each most
    python -m benchmarks.first_run --warm-up before     # after Numba's warm-up filled the cache

Prints cold, warm and cold - warm (the compile time a first run pays) per chapter, with the
CPU model, and writes the table as JSON to ``benchmarks/results/first-run-<time>.json``. The
target (issue 30): cold - warm <= 3 s per chapter. Also shown: the seconds the kernel clock
(``minitorch/backends/compile_time.py``) counted in the cold run, compiling or loading
kernels. Nothing here is a test: speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # allow `python benchmarks/first_run.py` without installing
    sys.path.insert(0, str(ROOT))

from benchmarks.distributed import cpu_model  # noqa: E402
from minitorch.course import warm_up as warm_up_module  # noqa: E402

TARGET_SECONDS = 3.0  # compile time a fresh cache may add to one chapter

# The last cell of each executed notebook: the compile clock of the kernel's process
CLOCK_CELL = "from minitorch.backends import compile_time\nprint('COMPILE_SECONDS', compile_time.seconds())"

# With --kernels, the first and the last cell added to each notebook: the compile time per
# kernel (``kernel_clock.py``), counted from the start of the notebook's kernel process
KERNEL_CLOCK_SETUP = "from benchmarks import kernel_clock\nkernel_clock.install()"
KERNEL_CLOCK_CELL = "kernel_clock.report()"


def workloads(kernels: bool = False) -> dict[str, list[str]]:
    """``{name: command}``: each chapter notebook, then the training script; with
    ``kernels``, each also reports its compile seconds per kernel."""
    chapters = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    execute = [sys.executable, "-m", "benchmarks.first_run"] + (["--kernel-clock"] if kernels else [])
    found = {path.stem: execute + ["--execute", str(path)] for path in chapters}
    script = [str(ROOT / "examples" / "digits_mlp.py"), "--epochs", "2"]
    found["digits_mlp (script)"] = execute + ["--script"] + script if kernels else [sys.executable] + script
    return found


def execute_notebook(path: Path, kernel_clock: bool) -> None:
    """Run every cell of one notebook in a fresh kernel, then print its compile clock
    (and, with ``kernel_clock``, its compile seconds per kernel)."""
    import nbclient
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    reports = [nbformat.v4.new_code_cell(CLOCK_CELL)]
    if kernel_clock:
        notebook.cells.insert(0, nbformat.v4.new_code_cell(KERNEL_CLOCK_SETUP))
        reports.insert(0, nbformat.v4.new_code_cell(KERNEL_CLOCK_CELL))
    notebook.cells.extend(reports)
    client = nbclient.NotebookClient(notebook, timeout=1200, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})  # fmt: skip
    client.execute()
    for cell in notebook.cells[-len(reports):]:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                print(output["text"].strip())


def run_script(arguments: list[str]) -> None:
    """Run a training script in this process with the kernel clock, then print it."""
    import runpy

    from benchmarks import kernel_clock

    kernel_clock.install()
    sys.argv = arguments
    try:
        runpy.run_path(arguments[0], run_name="__main__")
    finally:
        kernel_clock.report()


def child_environment(cache_dir: str) -> dict[str, str]:
    """The environment of a measured process: its own Numba cache, the Numba backend, and
    no warm-up of its own (``measure`` starts one when asked)."""
    return dict(os.environ, NUMBA_CACHE_DIR=cache_dir, MINITORCH_CPU_BACKEND="numba", MINITORCH_WARM_UP="0",
                PYDEVD_DISABLE_FILE_VALIDATION="1", TQDM_DISABLE="1",
                PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                )  # fmt: skip


def timed_run(command: list[str], cache_dir: str) -> tuple[float, float | None, list]:
    """``(seconds, compile clock or None, [(kernel seconds, compilations, kernel name), ...])``
    of one run of ``command`` in a fresh process whose Numba cache is ``cache_dir``."""
    start = time.perf_counter()
    done = subprocess.run(command, env=child_environment(cache_dir), cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    clock = re.findall(r"COMPILE_SECONDS ([0-9.eE+-]+)", done.stdout)
    kernels = [(float(seconds), int(count), name)
               for seconds, count, name in re.findall(r"KERNEL_SECONDS (\S+) (\d+) (.+)", done.stdout)]
    return seconds, float(clock[-1]) if clock else None, kernels


def measure(command: list[str], repeat: int, warm_up: str = "none") -> dict[str, float | None]:
    """Cold (new empty cache each time) and warm (the cache a cold run filled) seconds,
    the fastest of ``repeat`` runs each. With ``warm_up="before"`` the cold run starts
    after Numba's warm-up (``minitorch/course/warm_up.py``) has filled the new
    cache; with ``"alongside"`` the warm-up starts with the cold run, as when a student
    opens a Numba chapter right after ``python -m minitorch.course``, and is waited for
    before the warm run."""
    colds, warms, clock, kernels, warm_ups = [], [], None, [], []
    warm_up_command = [sys.executable, "-m", "minitorch.course.warm_up"]
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache_dir:
            environment = child_environment(cache_dir)  # (run directly, it ignores MINITORCH_WARM_UP)
            if warm_up == "before":
                start = time.perf_counter()
                subprocess.run(warm_up_command, env=environment, cwd=ROOT, capture_output=True, check=True)
                warm_ups.append(time.perf_counter() - start)
            beside = None
            if warm_up == "alongside":
                beside = subprocess.Popen(warm_up_command, env=environment, cwd=ROOT,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            seconds, clock, kernels = timed_run(command, cache_dir)
            if beside is not None:
                beside.wait()
            colds.append(seconds)
            warms.append(timed_run(command, cache_dir)[0])
            marker = warm_up_module.marker_path(cache_dir)
            for path in (marker, Path(f"{marker}.lock")):
                path.unlink(missing_ok=True)
    cold, warm = min(colds), min(warms)
    return {"cold": cold, "warm": warm, "compile": cold - warm, "clock": clock, "kernels": kernels,
            "warm_up": min(warm_ups) if warm_ups else None}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="+", help="run only workloads whose names contain one of these")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each, cold and warm (the fastest counts)"
    )
    parser.add_argument(
        "--kernels", type=int, default=0, metavar="N", help="show the N kernels whose compiling cost most"
    )
    parser.add_argument(
        "--warm-up", choices=["none", "before", "alongside"], default="none",
        help="Numba's warm-up: never (the plain first run), finished before the cold run, "
        "or started with it",
    )  # fmt: skip
    parser.add_argument("--execute", help=argparse.SUPPRESS)  # the child process: run one notebook
    parser.add_argument("--script", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)  # or one script
    parser.add_argument("--kernel-clock", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.execute:
        execute_notebook(Path(args.execute), args.kernel_clock)
        return
    if args.script:
        run_script(args.script)
        return
    chosen = {name: command for name, command in workloads(args.kernels > 0).items()
              if not args.only or any(part in name for part in args.only)}  # fmt: skip
    print(f"first run vs warm: minitorch numba backend, {os.cpu_count()} cores, {cpu_model()}, "
          f"warm-up: {args.warm_up}")  # fmt: skip
    print(
        f"{'workload':<32}{'cold s':>9}{'warm s':>9}{'compile s':>11}{'clock s':>9}"
        f"  target <= {TARGET_SECONDS:g} s"
    )
    rows = {}
    for name, command in chosen.items():
        row = rows[name] = measure(command, args.repeat, args.warm_up)
        clock = f"{row['clock']:>9.1f}" if row["clock"] is not None else f"{'-':>9}"
        verdict = "ok" if row["compile"] <= TARGET_SECONDS else "MISSED"
        print(
            f"{name:<32}{row['cold']:>9.1f}{row['warm']:>9.1f}{row['compile']:>11.1f}{clock}  {verdict}",
            flush=True,
        )
        if row["warm_up"] is not None:
            print(f"    (the warm-up before it took {row['warm_up']:.1f} s)", flush=True)
        for seconds, count, kernel in row["kernels"][: args.kernels]:
            times = "once" if count == 1 else f"{count} times"
            print(f"    {seconds:5.1f} s  {kernel}, compiled {times}", flush=True)
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    path = results / time.strftime("first-run-%Y%m%d-%H%M%S.json")
    path.write_text(
        json.dumps({"machine": {"cores": os.cpu_count(), "cpu": cpu_model()}, "rows": rows}, indent=2)
    )
    print(f"written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
