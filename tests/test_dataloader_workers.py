"""``DataLoader(num_workers=N)``: worker processes as PyTorch's.

Batches equal the single-process loader's and PyTorch's (same values, same worker for
each batch), in order; ``worker_init_fn``, ``persistent_workers``, ``prefetch_factor``,
``timeout``, ``get_worker_info()`` and per-worker seeds; ``IterableDataset`` split by
worker; the three start methods; a worker's exception, a killed worker, Ctrl-C, ``break``
and a dying parent, none leaving a process behind.

``MINITORCH_FUZZ=long`` (or a number) runs many more random loader configurations.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch import shared_storage
from minitorch.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info
from tests.hostile.budget import fuzz_count

ROOT = Path(__file__).resolve().parent.parent


class Numbers(Dataset):
    """Sample ``i``: ``{"x": [i, i*i] (float32), "i": i, "worker": id or -1, "pid": pid}``.
    ``fail_at`` raises ValueError, ``kill_at`` kills the worker (SIGKILL), ``slow`` maps a
    sample to seconds of sleep."""

    def __init__(self, n: int = 23, fail_at: int | None = None, kill_at: int | None = None,
                 slow: dict | None = None) -> None:  # fmt: skip
        self.n, self.fail_at, self.kill_at, self.slow = n, fail_at, kill_at, slow or {}
        self.offset = 0

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict:
        if i == self.fail_at:
            raise ValueError(f"bad sample {i}")
        if i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(self.slow.get(i, 0))
        info = get_worker_info()
        return {"x": minitorch.tensor([float(i), float(i * i)]), "i": i + self.offset,
                "worker": -1 if info is None else info.id, "pid": os.getpid()}  # fmt: skip


class TorchNumbers:
    """``Numbers`` for PyTorch's DataLoader (the oracle)."""

    def __len__(self) -> int:
        return 23

    def __getitem__(self, i: int) -> dict:
        import torch

        info = torch.utils.data.get_worker_info()
        worker = -1 if info is None else info.id
        return {"x": torch.tensor([float(i), float(i * i)]), "i": i, "worker": worker}


def _plain(batches: list) -> list:
    """Batches of ``Numbers`` as nested lists, without the pids."""
    return [(b["x"].tolist(), b["i"].tolist(), b["worker"].tolist()) for b in batches]


def _gone(pid: int) -> bool:
    """The process has exited (a zombie nobody has reaped yet counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _all_gone(pids: list[int], within: float = 60.0) -> bool:
    """Wait (at most ``within`` seconds) until every one of these processes has exited."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if all(_gone(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


# ---------------------------------------------------------------------------------------
# Batches: the same as one process, and as PyTorch's workers


def test_batches_equal_single_process_and_pytorch() -> None:
    import torch

    ours = list(DataLoader(Numbers(), batch_size=4, num_workers=2))
    single = list(DataLoader(Numbers(), batch_size=4))
    theirs = list(torch.utils.data.DataLoader(TorchNumbers(), batch_size=4, num_workers=2))
    assert _plain(ours) == [(x, i, w) for x, i, w in _plain(theirs)]  # worker k % 2 made batch k
    assert [b[:2] for b in _plain(ours)] == [b[:2] for b in _plain(single)]
    assert {b["worker"].tolist()[0] for b in single} == {-1}  # get_worker_info() is None here
    assert get_worker_info() is None
    assert len({int(b["pid"][0]) for b in ours} - {os.getpid()}) == 2


@pytest.mark.parametrize("options", [
    {"batch_size": 5, "shuffle": True, "drop_last": True},
    {"batch_size": None},
    {"batch_size": 3, "num_workers": 3, "prefetch_factor": 1},
])  # fmt: skip
def test_shuffle_drop_last_and_no_batching_match_single_process(options: dict) -> None:
    options = {"num_workers": 2, **options}
    workers = options.pop("num_workers")
    extra = {"prefetch_factor": options.pop("prefetch_factor")} if "prefetch_factor" in options else {}
    single = DataLoader(Numbers(), generator=minitorch.Generator().manual_seed(3), **options)
    multi = DataLoader(Numbers(), generator=minitorch.Generator().manual_seed(3), num_workers=workers,
                       **options, **extra)  # fmt: skip
    first, second = list(single), list(multi)
    assert len(first) == len(second) == len(multi)
    for a, b in zip(first, second):
        assert minitorch.equal(minitorch.as_tensor(a["x"]), minitorch.as_tensor(b["x"]))
        assert np.array_equal(np.asarray(a["i"]), np.asarray(b["i"]))


def test_tensor_dataset_and_custom_collate() -> None:
    X, y = minitorch.randn(10, 3).t().contiguous().t(), minitorch.arange(10)
    for collate_fn in (None, lambda samples: [s[1].item() for s in samples]):
        single = list(DataLoader(TensorDataset(X, y), batch_size=4, collate_fn=collate_fn))
        multi = list(DataLoader(TensorDataset(X, y), batch_size=4, collate_fn=collate_fn, num_workers=2))
        assert repr(single) == repr(multi)


class HeldBack(Dataset):
    """Samples ``0..11`` for two forked workers in batches of 3: worker 0 makes batches 0
    and 2, worker 1 batches 1 and 3. Sample 0 waits until ``released`` is set: by worker 1
    once it has made batch 3 (``released_by="worker 1"``), or by the training loop."""

    def __init__(self, released_by: str) -> None:
        self.released_by = released_by
        self.released = multiprocessing.get_context("fork").Event()

    def __len__(self) -> int:
        return 12

    def __getitem__(self, i: int) -> int:
        if i == 0:
            self.released.wait(timeout=120)
        if i == 11 and self.released_by == "worker 1":
            self.released.set()
        return i


def test_batches_stay_in_order_when_workers_finish_out_of_order() -> None:
    options = {"batch_size": 3, "num_workers": 2, "multiprocessing_context": "fork"}
    late_first = DataLoader(HeldBack(released_by="worker 1"), **options)  # batch 0 made last
    assert [int(b[0]) for b in late_first] == [0, 3, 6, 9]
    dataset = HeldBack(released_by="the loop")
    arrival = []
    for batch in DataLoader(dataset, **options, in_order=False):
        arrival.append(int(batch[0]))
        dataset.released.set()  # batch 0 can only be made once another batch has come
    assert arrival[0] != 0 and sorted(arrival) == [0, 3, 6, 9]


# ---------------------------------------------------------------------------------------
# get_worker_info, seeds, worker_init_fn


class Seeds(Dataset):
    """Each sample: what the worker's generators give, and its WorkerInfo."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> tuple:
        info = get_worker_info()
        return (info.id, info.num_workers, info.seed, type(info.dataset).__name__, random.random(),
                float(np.random.rand()), minitorch.rand(1).item())  # fmt: skip


def test_worker_seeds_from_the_main_generator() -> None:
    minitorch.manual_seed(7)
    first = list(DataLoader(Seeds(), batch_size=None, num_workers=2))
    minitorch.manual_seed(7)
    base_seed = int(minitorch.randint(0, 2**63, ()).item())  # what the loader drew
    minitorch.manual_seed(7)
    assert list(DataLoader(Seeds(), batch_size=None, num_workers=2)) == first  # repeatable
    for worker_id, num_workers, seed, name, python, numpy, ours in first[:2]:
        assert (num_workers, seed, name) == (2, base_seed + worker_id, "Seeds")
        assert python == random.Random(seed).random()
        assert ours == minitorch.rand(1, generator=minitorch.Generator().manual_seed(seed)).item()
        legacy = np.random.RandomState(np.random.SeedSequence([base_seed, worker_id]).generate_state(4))
        assert numpy == legacy.rand()
    assert first[0][4:] != first[1][4:]  # the two workers draw different numbers
    generator = minitorch.Generator().manual_seed(11)
    seeds = [s[2] for s in DataLoader(Seeds(), batch_size=None, num_workers=2, generator=generator)]
    assert seeds[0] == int(minitorch.randint(0, 2**63, (), generator=minitorch.Generator().manual_seed(11)))


def _shift_by_worker(worker_id: int) -> None:
    info = get_worker_info()
    assert info is not None and info.id == worker_id
    info.dataset.offset = 100 * worker_id  # this worker's copy of the dataset


def test_worker_init_fn_sets_up_each_worker_copy() -> None:
    dataset = Numbers(8)
    batches = list(DataLoader(dataset, batch_size=2, num_workers=2, worker_init_fn=_shift_by_worker))
    assert [b["i"].tolist() for b in batches] == [[0, 1], [102, 103], [4, 5], [106, 107]]
    assert dataset.offset == 0  # the main process's copy is untouched


def _fail_init(worker_id: int) -> None:
    raise RuntimeError(f"cannot open shard {worker_id}")


def test_worker_init_fn_error_reaches_the_main_process() -> None:
    expected = r"(?s)Caught RuntimeError in DataLoader worker process 0.*cannot open shard 0"
    with pytest.raises(RuntimeError, match=expected):
        list(DataLoader(Numbers(8), batch_size=2, num_workers=2, worker_init_fn=_fail_init))


# ---------------------------------------------------------------------------------------
# persistent_workers, prefetch_factor


def test_persistent_workers_serve_every_epoch() -> None:
    loader = DataLoader(Numbers(10), batch_size=3, num_workers=2, persistent_workers=True)
    epochs = [list(loader) for _ in range(3)]
    pids = [{int(b["pid"][0]) for b in epoch} for epoch in epochs]
    assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2
    assert _plain(epochs[0]) == _plain(epochs[2])
    for _ in loader:  # a break leaves answers in flight; the next epoch is still whole
        break
    assert _plain(list(loader)) == _plain(epochs[0])
    fresh = DataLoader(Numbers(10), batch_size=3, num_workers=2)
    first, second = ({int(b["pid"][0]) for b in fresh} for _ in range(2))
    assert not first & second  # without persistent_workers: new processes each epoch
    assert _all_gone(list(first | second))
    del loader
    gc.collect()
    assert _all_gone(list(pids[0]))


class Counted(Dataset):
    """Counts fetched samples in shared memory (the workers are forked)."""

    def __init__(self) -> None:
        self.fetched = multiprocessing.get_context("fork").Value("i", 0)

    def __len__(self) -> int:
        return 40

    def __getitem__(self, i: int) -> int:
        with self.fetched.get_lock():
            self.fetched.value += 1
        return i


@pytest.mark.parametrize("prefetch_factor", [1, 3])
def test_prefetch_factor_bounds_the_batches_in_flight(prefetch_factor: int) -> None:
    """The tasks sent are counted by the main process, the samples fetched by the
    workers: once the workers have fetched every task sent, no more is fetched until the
    loop takes another batch (no task is left for them)."""
    dataset = Counted()
    loader = DataLoader(dataset, num_workers=2, prefetch_factor=prefetch_factor,
                        multiprocessing_context="fork")  # fmt: skip
    iterator = iter(loader)
    assert next(iterator).tolist() == [0]
    # prefetch_factor * 2 sent at the start, one more for the batch taken
    assert iterator.sent == 2 * prefetch_factor + 1
    deadline = time.monotonic() + 60  # a bound, not a duration: the count is awaited
    while dataset.fetched.value < iterator.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert dataset.fetched.value == iterator.sent
    assert [b.item() for b in iterator] == list(range(1, 40))


# ---------------------------------------------------------------------------------------
# Failures: exceptions, killed workers, timeout


def test_worker_exception_carries_the_worker_traceback() -> None:
    iterator = iter(DataLoader(Numbers(fail_at=5), batch_size=4, num_workers=2))
    next(iterator)
    with pytest.raises(ValueError) as caught:
        next(iterator)
    message = str(caught.value)
    assert message.startswith("Caught ValueError in DataLoader worker process 1.\nOriginal Traceback")
    assert "bad sample 5" in message and "__getitem__" in message and Path(__file__).name in message
    assert next(iterator)["i"].tolist() == [8, 9, 10, 11]  # as in PyTorch, the loop may go on


class Lookup(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        return {}[f"missing {i}"]


class NeedsTwoArguments(Exception):
    def __init__(self, code: int, why: str) -> None:
        super().__init__(code, why)


class RaisesOddException(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        raise NeedsTwoArguments(3, "odd")


def test_key_errors_and_odd_exceptions_are_readable() -> None:
    with pytest.raises(KeyError) as caught:
        list(DataLoader(Lookup(), num_workers=1))
    assert "Caught KeyError in DataLoader worker process 0.\nOriginal Traceback" in str(caught.value)
    with pytest.raises(RuntimeError, match="Caught NeedsTwoArguments in DataLoader worker process 0"):
        list(DataLoader(RaisesOddException(), num_workers=1))
    unpicklable = DataLoader(Numbers(4), num_workers=1, collate_fn=lambda samples: lambda: None)
    with pytest.raises(Exception, match="in DataLoader worker process 0"):  # the batch cannot be sent
        list(unpicklable)


DIES_AT = """
import sys, time
sys.path.insert(0, {root!r})
from minitorch.utils.data import DataLoader
from tests.mp_workers import DiesAt

def stopped(pid):
    with open(f"/proc/{{pid}}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "T"

dataset = DiesAt({how!r})
iterator = iter(DataLoader(dataset, batch_size=None, num_workers=2, timeout={timeout},
                           collate_fn=lambda sample: sample, multiprocessing_context="fork"))
print(*iterator.worker_pids, flush=True)
assert next(iterator) == bytes([0])
dataset.gate.set()  # worker 1 goes on, and this process reads nothing until it has ended
if {how!r} == "stopped":
    while not stopped(iterator.workers[1].pid):
        time.sleep(0.01)
else:
    iterator.workers[1].join()
try:
    print(sum(len(sample) for sample in iterator))
except RuntimeError as error:
    print(error)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="the dataset watches its pipes in /proc")
@pytest.mark.parametrize("how", ["before", "while", "after", "stopped", "holding locks"])
def test_a_worker_killed_at_any_moment_is_an_error_within_the_timeout(how: str) -> None:
    """Worker 1 is killed before, while or after sending a batch (``tests/mp_workers.py``
    ``DiesAt``), or holding every lock it shares, or stopped halfway through sending it,
    while the main process reads
    nothing; then the main process reads on. PyTorch's error comes, never a read that
    waits for the rest of a half-written batch (run as a program, so that a hang is a
    failure, not a hung test run)."""
    program = DIES_AT.format(root=str(ROOT), how=how, timeout=2 if how == "stopped" else 10)
    child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)  # fmt: skip
    try:
        stdout, stderr = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # the workers too: one process group
        stdout, stderr = child.communicate()
        pytest.fail(f"the main process hung after worker 1 was {how}:\n{stdout}{stderr}")
    assert child.returncode == 0, stderr
    pids, message = stdout.splitlines()
    pids = [int(pid) for pid in pids.split()]
    if how == "stopped":
        assert message == "DataLoader timed out after 2 seconds"
    else:
        assert message == f"DataLoader worker (pid {pids[1]}) is killed by signal: Killed."
    assert _all_gone(pids)  # the stopped worker too
    assert _segments_of({child.pid, *pids}) == []


def test_timeout() -> None:
    """Batch 0 takes two minutes (its worker is terminated long before): the first wait
    times out, whatever the machine's speed."""
    iterator = iter(DataLoader(Numbers(8, slow={0: 120}), batch_size=2, num_workers=2, timeout=0.5))
    pids = iterator.worker_pids
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        next(iterator)
    assert _all_gone(pids)


# ---------------------------------------------------------------------------------------
# No orphans: break, del, Ctrl-C, a dying parent


def test_break_and_del_leave_no_process() -> None:
    iterator = iter(DataLoader(Numbers(40, slow={i: 0.02 for i in range(40)}), batch_size=2, num_workers=2))
    pids = set(iterator.worker_pids)
    for count, batch in enumerate(iterator):
        pids.add(int(batch["pid"][0]))
        if count == 2:
            break
    assert len(pids) == 2 and not any(_gone(pid) for pid in pids)
    del iterator
    assert _all_gone(list(pids))


PROGRAM = """
import os, signal, sys
sys.path.insert(0, {root!r})
from minitorch.utils.data import DataLoader
from tests.mp_workers import Endless

loader = DataLoader(Endless(), batch_size=2, num_workers=2, persistent_workers=True)
iterator = iter(loader)
next(iterator)
print(*iterator.worker_pids, flush=True)
{then}
"""


def _start(then: str) -> subprocess.Popen:
    program = PROGRAM.format(root=str(ROOT), then=then)
    return subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # fmt: skip


class _Lines:
    """The lines a child writes to one of its streams, read by a thread, so that waiting
    for the next one is bounded. ``None`` marks the end of the stream."""

    def __init__(self, stream) -> None:
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    def next(self) -> str | None:
        return self.lines.get(timeout=120)  # queue.Empty: the child hung


def _interrupt_until_it_ends(child: subprocess.Popen, stderr: _Lines, interrupt) -> str:
    """Interrupt the child, and again each time it reports that the interrupt landed in a
    finalizer, where Python prints it ("Exception ignored in ...") and goes on; return its
    stderr once it has closed it (exited)."""
    interrupt()
    lines, ignored = [], False
    while (line := stderr.next()) is not None:
        lines.append(line)
        ignored = ignored or line.startswith("Exception ignored")
        if ignored and line.startswith("KeyboardInterrupt"):
            ignored = False
            interrupt()
    child.wait(timeout=120)
    return "".join(lines)


def test_ctrl_c_and_a_dying_parent_leave_no_process() -> None:
    """Three programs at once, each with two workers and a loop over an endless stream (it
    ends only when interrupted). A terminal's Ctrl-C signals the whole process group;
    Jupyter's interrupt only the kernel (the main process); a SIGKILL of the main process
    runs no cleanup code at all, and the orphans notice their parent is gone. Each time
    every worker ends, and no shared-memory segment is left. Each program is interrupted
    once it is in its loop (it has printed its workers' pids), never after a delay."""
    children = {"terminal": _start("for batch in iterator: pass"),
                "main process only": _start("for batch in iterator: pass"),
                "parent killed": _start("os.kill(os.getpid(), signal.SIGKILL)")}  # fmt: skip
    stderrs = {how: _Lines(child.stderr) for how, child in children.items()}
    pids = {}
    for how, child in children.items():
        line = _Lines(child.stdout).next()
        assert line, "".join(iter(stderrs[how].next, None))
        pids[how] = [int(pid) for pid in line.split()]
    interrupts = {"terminal": lambda: os.killpg(children["terminal"].pid, signal.SIGINT),
                  "main process only": lambda: os.kill(children["main process only"].pid, signal.SIGINT),
                  "parent killed": lambda: None}  # fmt: skip
    for how, child in children.items():
        stderr = _interrupt_until_it_ends(child, stderrs[how], interrupts[how])
        if how == "parent killed":
            assert child.returncode == -signal.SIGKILL
        else:  # ended by the interrupt: a KeyboardInterrupt, or the signal itself when it
            # arrived before Python's handler could run (seen once on a loaded CI machine)
            interrupted = "KeyboardInterrupt" in stderr or child.returncode == -signal.SIGINT
            assert interrupted, (child.returncode, stderr)
            # No traceback from a worker: they leave quietly. (When the main process's
            # interrupt was ignored in a finalizer, it finds its interrupted workers gone
            # and says so.)
            assert "Process DataLoader worker" not in stderr and "_worker.py" not in stderr, stderr
        assert _all_gone(pids[how]), how
        assert _segments_of({child.pid, *pids[how]}) == [], how


# ---------------------------------------------------------------------------------------
# Batches through shared memory, and no segment left behind


def _segments_of(pids: set[int]) -> list[str]:
    """minitorch's shared-memory segments made by these processes (a segment's name holds
    its creator's pid: ``minitorch_<program>_<creator pid>_<random>``; other tests running
    at the same time own other segments)."""
    names = [path.name for path in Path(shared_storage.SEGMENT_DIR).glob(f"{shared_storage.PREFIX}*")]
    return [name for name in names
            if any(part.isdigit() and int(part) in pids for part in name.split("_")[1:-1])]  # fmt: skip


def test_batches_arrive_in_shared_memory() -> None:
    iterator = iter(DataLoader(Numbers(12), batch_size=3, num_workers=2))
    pids = set(iterator.worker_pids)
    batches = list(iterator)
    assert all(b["x"].is_shared() and b["i"].is_shared() for b in batches)
    assert len(_segments_of(pids)) == 4 * len(batches)  # made by the workers, mapped here
    single = DataLoader(Numbers(12), batch_size=3)
    assert [b["x"].tolist() for b in batches] == [b["x"].tolist() for b in single]
    assert not next(iter(DataLoader(Numbers(12), batch_size=3)))["x"].is_shared()
    del batches
    assert _segments_of(pids) == []  # the last holder removed each name


@pytest.mark.parametrize("ending", ["break", "persistent break", "exception", "killed worker", "timeout"])
def test_no_segment_is_left_behind(ending: str) -> None:
    slow = {i: 0.02 for i in range(40)} | ({0: 120} if ending == "timeout" else {})  # batch 0 never comes
    dataset = Numbers(40, fail_at=9 if ending == "exception" else None,
                      kill_at=9 if ending == "killed worker" else None, slow=slow)  # fmt: skip
    loader = DataLoader(dataset, batch_size=2, num_workers=2, persistent_workers=ending == "persistent break",
                        timeout=2 if ending == "timeout" else 0)  # fmt: skip
    iterator = iter(loader)
    pids = set(iterator.worker_pids)
    batches, batch = [], None
    with contextlib.suppress(ValueError, RuntimeError):
        for batch in iterator:
            batches.append(batch)
            if len(batches) == 3 and "break" in ending:
                break
    if ending == "persistent break":
        assert len(list(loader)) == 20  # the next epoch, after the break
    assert (batches or ending == "timeout") and all(b["x"].is_shared() for b in batches)
    del iterator, loader, batch, batches  # the batches held their segments too
    gc.collect()
    assert _all_gone(list(pids))
    assert _segments_of(pids) == []


# ---------------------------------------------------------------------------------------
# IterableDataset


class Stream(IterableDataset):
    """``range(n)``, split between workers when ``split``."""

    def __init__(self, n: int, split: bool = True) -> None:
        self.n, self.split = n, split

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.split:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def _torch_stream(n: int, **options) -> list:
    import torch

    class TorchStream(torch.utils.data.IterableDataset):
        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            return iter(range(n) if info is None else range(info.id, n, info.num_workers))

    return [b.tolist() if hasattr(b, "tolist") else b
            for b in torch.utils.data.DataLoader(TorchStream(), **options)]  # fmt: skip


@pytest.mark.filterwarnings("ignore:This DataLoader will create 5 worker processes")
@pytest.mark.parametrize("options", [
    {"batch_size": 3, "num_workers": 2},
    {"batch_size": 3, "num_workers": 2, "drop_last": True},
    {"batch_size": None, "num_workers": 2},
    {"batch_size": 2, "num_workers": 5},  # more workers than batches
    {"batch_size": 4, "num_workers": 0},
])  # fmt: skip
def test_iterable_dataset_split_by_worker_as_pytorch(options: dict) -> None:
    ours = [b.tolist() if hasattr(b, "tolist") else b for b in DataLoader(Stream(11), **options)]
    assert ours == _torch_stream(11, multiprocessing_context="fork" if options["num_workers"] else None,
                                 **options)  # fmt: skip


def test_iterable_dataset_without_split_gives_every_sample_per_worker() -> None:
    samples = [int(v) for b in DataLoader(Stream(7, split=False), batch_size=2, num_workers=3) for v in b]
    assert sorted(samples) == sorted(list(range(7)) * 3)
    loader = DataLoader(Stream(7), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in loader] == [b.tolist() for b in loader]  # each epoch restarts the stream


# ---------------------------------------------------------------------------------------
# Start methods, options and their errors


def test_start_methods() -> None:
    """fork, spawn and forkserver give the same batches. (The workers of all three start at
    once, one each for spawn and forkserver: a spawned worker takes seconds to import.)"""
    iterators = {}
    for method, workers in (("fork", 2), ("spawn", 1), ("forkserver", 1)):
        loader = DataLoader(Numbers(9), batch_size=4, num_workers=workers, multiprocessing_context=method)
        iterators[method] = iter(loader)
    expected = [b[:2] for b in _plain(DataLoader(Numbers(9), batch_size=4))]
    for method, iterator in iterators.items():
        assert [b[:2] for b in _plain(iterator)] == expected, method
    context = multiprocessing.get_context("spawn")
    loader = DataLoader(Numbers(9), num_workers=1, multiprocessing_context=context)
    assert loader.multiprocessing_context is context


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_started_workers_leave_the_resource_tracker_clean(method: str) -> None:
    """Each batch tensor's segment is registered with the resource tracker by the worker
    that made it, and removed (and so unregistered) by the main process once the batch
    is gone: at exit the tracker has nothing to clean and nothing to warn about."""
    program = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
               "from minitorch.utils.data import DataLoader\n"
               "from tests.mp_workers import Filled\n"
               "loader = DataLoader(Filled(), batch_size=4, num_workers=1,\n"
               f"                    multiprocessing_context={method!r})\n"
               "print(sum(batch.shape[0] for batch in loader))\n")  # fmt: skip
    child = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        stdout, stderr = child.communicate(timeout=120)
    finally:
        child.kill()
    assert (child.returncode, stdout) == (0, "20\n"), stderr
    assert "resource_tracker" not in stderr and "leaked" not in stderr, stderr
    assert _segments_of({child.pid}) == []  # the program's segments carry its pid


def test_shutdown_waits_for_the_index_queues_feeder_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A queue's feeder thread holds two of its semaphores. Had it outlived the epoch, it
    would release them itself, and at the program's exit the interpreter would stop it
    midway: the resource tracker then warns of a leaked semaphore (seen on a loaded
    machine). Here each feeder lingers after its last message; shutdown must wait for it."""
    import multiprocessing.queues

    feed = multiprocessing.queues.Queue._feed

    def lingering_feed(*args: object) -> None:
        feed(*args)
        time.sleep(0.3)  # (holding the queue's semaphores, as the real one does for a moment)

    monkeypatch.setattr(multiprocessing.queues.Queue, "_feed", staticmethod(lingering_feed))
    before = set(threading.enumerate())
    loader = DataLoader(Numbers(8), batch_size=2, num_workers=2, multiprocessing_context="fork")
    assert [b[:2] for b in _plain(loader)] == [b[:2] for b in _plain(DataLoader(Numbers(8), batch_size=2))]
    feeders = [t for t in set(threading.enumerate()) - before if t.name == "QueueFeederThread"]
    assert feeders == []


@pytest.mark.parametrize("options", [
    {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2}, {"persistent_workers": True},
    {"multiprocessing_context": "spawn"}, {"num_workers": 1, "multiprocessing_context": "bogus"},
    {"num_workers": 1, "multiprocessing_context": 3}, {"num_workers": 1, "prefetch_factor": -1},
    {"num_workers": 1, "prefetch_factor": 0}, {"timeout": 1},
])  # fmt: skip
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # torch's half-made iterator
def test_bad_options_raise_as_pytorch(options: dict) -> None:
    import torch

    with pytest.raises(Exception) as theirs:
        next(iter(torch.utils.data.DataLoader(TorchNumbers(), **options)))
    with pytest.raises(theirs.type) as ours:
        next(iter(DataLoader(Numbers(), **options)))
    assert str(ours.value).split()[:3] == str(theirs.value).split()[:3]
    del theirs
    gc.collect()


def test_iterable_dataset_refuses_shuffle_and_samplers() -> None:
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler"):
        DataLoader(Stream(3), sampler=[0, 1])


def test_pin_memory_is_accepted() -> None:
    with pytest.warns(UserWarning, match="no accelerator is found"):
        loader = DataLoader(Numbers(6), batch_size=3, num_workers=2, pin_memory=True)
    assert [b[:2] for b in _plain(loader)] == [b[:2] for b in _plain(DataLoader(Numbers(6), batch_size=3))]


# ---------------------------------------------------------------------------------------
# Random configurations against the single-process loader


@pytest.mark.parametrize("case", range(fuzz_count(2)))
def test_random_configurations_match_single_process(case: int) -> None:
    """Two epochs, the first perhaps cut short by a break, against two full epochs of the
    single-process loader. A shuffled second epoch of persistent workers is another
    permutation, as in PyTorch: their base seed is drawn once, not every epoch."""
    rng = random.Random(case)
    options = {"batch_size": rng.choice([None, 1, 2, 5]), "shuffle": rng.random() < 0.5}
    if options["batch_size"] is not None:
        options["drop_last"] = rng.random() < 0.5
    workers = {"num_workers": rng.randint(1, 4), "prefetch_factor": rng.randint(1, 3),
               "persistent_workers": rng.random() < 0.5}  # fmt: skip
    dataset = Numbers(rng.randint(0, 17), slow={i: rng.random() * 0.01 for i in range(17)})
    single = DataLoader(dataset, generator=minitorch.Generator().manual_seed(case), **options)
    expected = [[b[:2] for b in _plain_any(single)] for _ in range(2)]
    loader = DataLoader(dataset, generator=minitorch.Generator().manual_seed(case), **options, **workers)
    stop = rng.randint(1, len(expected[0]) + 1)
    first = []
    for batch in loader:
        first.append(batch)
        if len(first) == stop:
            break
    assert [b[:2] for b in _plain_any(first)] == expected[0][:stop], (options, workers)
    second = [b[:2] for b in _plain_any(loader)]
    if options["shuffle"] and workers["persistent_workers"]:  # the same count of distinct samples
        samples = [i for _, indices in second for i in np.atleast_1d(indices).tolist()]
        assert len(second) == len(expected[1]) and len(set(samples)) == len(samples), (options, workers)
        assert len(samples) == sum(np.size(indices) for _, indices in expected[1]), (options, workers)
    else:
        assert second == expected[1], (options, workers)


def _plain_any(batches) -> list:
    """Like ``_plain``, also for ``batch_size=None`` (samples are dicts of numbers)."""
    return [(np.asarray(b["x"]).tolist(), np.asarray(b["i"]).tolist(), np.asarray(b["worker"]).tolist())
            for b in batches]  # fmt: skip
