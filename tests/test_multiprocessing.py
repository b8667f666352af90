"""Tensors across processes: ``share_memory_``, ``is_shared`` and ``minitorch.multiprocessing``.

Children run the functions of ``tests/mp_workers.py``, started with ``fork`` and with
``spawn``. What is checked, beyond values: a tensor travels as a segment's name (the
child's in-place write is seen by the parent), and no segment is left in the segment
directory (``/dev/shm`` on Linux) once the tensors are gone, whether the children exited
normally, by an exception or by SIGKILL. ``MINITORCH_FUZZ`` multiplies the number of
tensors and rounds of the leak tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
import torch

import minitorch
import minitorch.multiprocessing as mp
from minitorch import shared_storage
from minitorch.backends import cuda_emulator
from minitorch.backends.cuda import device as cuda_device
from tests import mp_workers
from tests.hostile.budget import fuzz_count

ROUNDS = fuzz_count(1)  # leak tests: 1,000 tensors per round (10 batches of 100)
TIMEOUT = 120  # seconds: a loaded machine starts a spawned child in seconds, not minutes


def segments(*pids: int) -> set[str]:
    """The minitorch segments in the segment directory created by these processes."""
    found = set()
    for name in os.listdir(shared_storage.SEGMENT_DIR):
        fields = name.split("_")  # minitorch_<program>_<creator pid>_<random>
        if name.startswith(shared_storage.PREFIX) and len(fields) == 4 and fields[2].isdigit():
            found |= {name} if int(fields[2]) in pids else set()
    return found


def roundtrip(t: minitorch.Tensor) -> minitorch.Tensor:
    """``t`` pickled and unpickled the way multiprocessing sends it, in this process."""
    return ForkingPickler.loads(ForkingPickler.dumps(t))


# ----- share_memory_ and is_shared, in one process -----------------------------------


def test_share_memory_moves_the_storage_in_place_for_every_view():
    x = minitorch.arange(12.0).reshape(3, 4)
    views = [x.t(), x[1], x[:, 1:3], x.view(12), x[0].expand(5, 4)]
    before = segments(os.getpid())
    expected = torch.arange(12.0).reshape(3, 4)
    assert not x.is_shared() and not expected.is_shared()
    assert x.share_memory_() is x
    expected.share_memory_()
    assert x.is_shared() == expected.is_shared() is True
    assert all(v.is_shared() for v in views)
    assert len(segments(os.getpid()) - before) == 1  # one segment for the one storage
    assert {id(v._storage) for v in views} == {id(x._storage)}
    views[1].mul_(10)  # a write through a view is seen by the base and the other views
    expected[1].mul_(10)
    np.testing.assert_array_equal(x.numpy(), expected.numpy())
    np.testing.assert_array_equal(views[0].numpy(), expected.t().numpy())
    np.testing.assert_array_equal(views[4].numpy(), expected[0].expand(5, 4).numpy())
    x.share_memory_()  # already shared: nothing moves
    assert len(segments(os.getpid()) - before) == 1
    del x, views
    assert segments(os.getpid()) - before == set()  # the last view gone, the name goes


def test_a_tensor_that_alone_holds_its_storage_is_moved_without_a_garbage_collector_walk(monkeypatch):
    def walk(*objects):
        raise AssertionError("gc.get_referrers walked every object for a lone tensor")

    monkeypatch.setattr("gc.get_referrers", walk)
    x = minitorch.arange(4.0)
    x.share_memory_()
    assert x.is_shared() and x.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert roundtrip(minitorch.ones(2)).tolist() == [1.0, 1.0]  # what a queue does to a fresh one


def test_sharing_keeps_autograd_working():
    w = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (w * w).sum()
    w.share_memory_()
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0, 6.0])
    assert w.is_leaf and w.requires_grad and w.is_shared()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "bfloat16", "float32", "float64"])  # fmt: skip
def test_every_dtype_and_edge_shape_round_trips(dtype):
    values = (torch.arange(-3, 9).reshape(3, 4) % 3).tolist()
    x = minitorch.tensor(values, dtype=getattr(minitorch, dtype))
    for view in (x, x.t(), x[1:, ::2], x[2, 1], x[:0]):  # transposed, sliced, 0-d, empty
        received = roundtrip(view)
        assert received.dtype is view.dtype and received.shape == view.shape
        assert received.stride() == view.stride()
        assert received.storage_offset() == view.storage_offset()
        assert received.is_shared() and received.tolist() == view.tolist()


def test_a_message_carries_the_segments_name_and_the_layout_never_the_values():
    big = minitorch.zeros(1_000_000)  # 4 MB of values
    message = ForkingPickler.dumps(big[::2])
    tiny = ForkingPickler.dumps(minitorch.zeros(1))
    assert len(message) < 600  # the name, the cell type and count, shape, strides, dtype...
    assert len(message) == pytest.approx(len(tiny), abs=60)
    assert shared_storage.PREFIX.encode() in bytes(message)
    received = ForkingPickler.loads(message)  # (a message never received pins its segment)
    assert received.shape == (500_000,) and received.stride() == (2,)
    ForkingPickler.loads(tiny)


def test_the_same_storage_received_twice_is_one_storage():
    x = minitorch.zeros(2, 3)
    a, b = roundtrip(x), roundtrip(x.t())
    assert a._storage is b._storage is x._storage
    b[2, 0] = 7.0
    assert x[0, 2].item() == a[0, 2].item() == 7.0


def test_a_non_leaf_that_requires_grad_is_refused_as_pytorch_refuses_it():
    w = minitorch.randn(3, requires_grad=True)
    y, before = w * 2, segments(os.getpid())
    with pytest.raises(RuntimeError) as mine:
        ForkingPickler.dumps(y)
    assert not y.is_shared() and segments(os.getpid()) - before == set()  # refused before any move
    y.sum().backward()  # and nothing is lost: the graph still works
    assert w.grad.tolist() == [2.0, 2.0, 2.0]
    expected = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError) as theirs:
        ForkingPickler.dumps(expected * 2)
    assert str(mine.value) == str(theirs.value)
    with pytest.raises(RuntimeError, match="non-leaf tensor that requires grad"):
        y.share_memory_()  # sharing it in place is refused too, before anything moves
    assert not y.is_shared() and segments(os.getpid()) - before == set()
    assert y.detach().share_memory_().is_shared()
    received = roundtrip((w * 2).detach())  # what the message says to do instead
    assert not received.requires_grad
    leaf = roundtrip(w)
    assert leaf.requires_grad and leaf.is_leaf
    parameter = roundtrip(minitorch.nn.Parameter(minitorch.ones(2)))
    assert isinstance(parameter, minitorch.nn.Parameter) and parameter.requires_grad


def test_the_module_is_pythons_multiprocessing_plus_the_sharing_strategy():
    import multiprocessing

    assert set(multiprocessing.__all__) <= set(mp.__all__)
    assert mp.Queue is multiprocessing.Queue and mp.get_context is multiprocessing.get_context
    assert mp.get_all_sharing_strategies() == {"file_system"}
    assert mp.get_sharing_strategy() == "file_system"
    with pytest.raises(ValueError, match="file_system"):
        mp.set_sharing_strategy("file_descriptor")


# ----- across processes --------------------------------------------------------------


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_child_sees_the_tensors_and_its_writes_are_seen_by_the_parent(method):
    ctx = mp.get_context(method)
    base = minitorch.arange(12.0).reshape(3, 4)
    w = minitorch.tensor([1.0, -1.0], requires_grad=True)
    sent = [
        (base, False),
        (base.t(), False),  # a transposed view of the same storage
        (base[1, 1:3], True),  # a slice: the child adds 1 to base's row 1, columns 1:3
        (base[0].expand(2, 4), False),  # stride 0
        (minitorch.tensor(3, dtype=minitorch.int64), True),  # 0-d
        (minitorch.zeros(0, 5), True),  # empty
        (minitorch.tensor([True, False]), False),
        (minitorch.tensor([1.5, 2.5], dtype=minitorch.bfloat16), False),
        (w, False),  # a leaf that requires grad stays one
    ]
    expected = [mp_workers.describe(t) for t, _ in sent]
    expected = [e[:4] + (True,) + e[5:] for e in expected]  # sent tensors become shared
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=mp_workers.receive_and_write, args=(inbox, outbox))
    child.start()
    inbox.put(sent)
    report, storages, made = outbox.get(timeout=TIMEOUT)
    child.join(TIMEOUT)
    assert child.exitcode == 0
    assert report == expected
    assert storages == len(sent) - 3  # base and its three views arrive as one storage
    assert base.tolist() == [[0, 1, 2, 3], [4, 6, 7, 7], [8, 9, 10, 11]]  # the child's write
    assert sent[4][0].item() == 4
    assert made.tolist() == [[0, 1, 2], [3, 4, 5]] and made.is_shared()
    del made  # the child has exited: we were its last holder
    assert segments(child.pid) == set()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pool_map_sends_tensors_both_ways(method):
    inputs = [minitorch.arange(3.0) + i for i in range(6)]
    with mp.get_context(method).Pool(2 if method == "fork" else 1) as pool:  # spawn: slow to start
        outputs = pool.map(mp_workers.double, inputs)
    for i, (t, out) in enumerate(zip(inputs, outputs, strict=True)):
        assert t.tolist() == [-(i + k) for k in range(3)]  # the worker's write, seen here
        assert out.tolist() == [2 * (i + k) for k in range(3)] and out.is_shared()


def test_a_forked_child_writes_into_a_process_argument_only_if_it_was_shared_first():
    ctx = mp.get_context("fork")  # arguments are not sent: the child has a copy of memory
    private, shared = minitorch.zeros(2), minitorch.zeros(2).share_memory_()
    for t in (private, shared):
        child = ctx.Process(target=mp_workers.fill_seven, args=(t,))
        child.start()
        child.join(TIMEOUT)
        assert child.exitcode == 0
    assert private.tolist() == [0.0, 0.0] and shared.tolist() == [7.0, 7.0]


def test_a_pipe_carries_tensors():
    here, there = mp.Pipe()
    x = minitorch.ones(4)
    here.send(x[::2])
    got = there.recv()
    got.fill_(5.0)
    assert x.tolist() == [5.0, 1.0, 5.0, 1.0]


def test_a_message_outlives_its_sender():
    ctx = mp.get_context("fork")
    outbox = ctx.Queue()
    child = ctx.Process(target=mp_workers.send_and_exit, args=(outbox,))
    child.start()
    child.join(TIMEOUT)  # the child has exited (its tensor gone) before we receive
    assert child.exitcode == 0
    got = outbox.get(timeout=TIMEOUT)
    assert got.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert len(segments(child.pid)) == 1  # the segment lives on for the receiver
    del got
    assert segments(child.pid) == set()


def test_a_cuda_tensor_reaches_an_emulating_child_and_is_refused_clearly_by_another():
    if not cuda_emulator.is_available():
        pytest.skip(f"no CUDA emulator here: {cuda_emulator.unavailable_reason()}")
    before = segments(os.getpid())
    with cuda_device.emulated():
        t = minitorch.tensor([1.0, 2.0, 3.0], device="cuda")
        answers = []
        for method in ("fork", "spawn"):  # fork inherits the emulator, spawn does not
            ctx = mp.get_context(method)
            inbox, outbox = ctx.Queue(), ctx.Queue()
            child = ctx.Process(target=mp_workers.receive_cuda, args=(inbox, outbox))
            child.start()
            inbox.put(t)
            answers.append(outbox.get(timeout=TIMEOUT))
            child.join(TIMEOUT)
        assert t.is_shared()
    assert answers[0] == ("ok", "cuda", [1.0, 2.0, 3.0])
    assert answers[1][0] == "error" and "use_emulator()" in answers[1][1]
    del t  # the refused message was taken out of the count: nothing keeps the segment
    assert segments(os.getpid()) - before == set()


# ----- no segment is left --------------------------------------------------------------


def test_a_fork_while_another_thread_holds_the_resource_trackers_lock_makes_a_working_child():
    """A fork copies only the forking thread: a lock another thread holds at that moment
    (as a queue's feeder thread does while it registers or removes a segment's name) must
    not stay held in the child, whose first ``share_memory_()`` would then hang."""
    import threading
    from multiprocessing import resource_tracker

    minitorch.ones(1).share_memory_()  # the tracker runs already, as in most programs
    ctx = mp.get_context("fork")
    outbox = ctx.Queue()
    held, release = threading.Event(), threading.Event()

    def hold_the_lock():
        with resource_tracker._resource_tracker._lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    held.wait(10)
    threading.Timer(0.3, release.set).start()  # the fork waits for the lock, then goes on
    child = ctx.Process(target=mp_workers.share_one, args=(outbox,))
    child.start()
    assert outbox.get(timeout=TIMEOUT).tolist() == [0.0, 1.0, 2.0]
    child.join(TIMEOUT)
    holder.join()
    assert child.exitcode == 0


@pytest.mark.parametrize("ending", ["normal", "exception", "sigkill"])
def test_no_segment_is_left_after_many_tensors_and_any_ending(ending):
    ctx = mp.get_context("fork")
    before = segments(os.getpid())
    for _ in range(ROUNDS):
        inbox, outbox = ctx.Queue(), ctx.Queue()
        child = ctx.Process(target=mp_workers.batches_then_end, args=(inbox, outbox, ending))
        child.start()
        for b in range(10):  # 1,000 tensors, 100 to a message
            batch = [minitorch.full((3,), float(b)) for _ in range(100)]
            inbox.put(batch)
            answer = outbox.get(timeout=TIMEOUT)
            assert answer.tolist() == [100.0, 100.0]
            assert all(t.tolist() == [b + 1.0] * 3 for t in batch)  # the child's writes
            del batch, answer
        inbox.put(None)
        if ending == "sigkill":
            assert outbox.get(timeout=TIMEOUT)[0] == "ready"
            assert len(segments(child.pid)) == 5  # its own, never sent
            os.kill(child.pid, signal.SIGKILL)
        child.join(TIMEOUT)
        assert child.exitcode == {"normal": 0, "exception": 1, "sigkill": -signal.SIGKILL}[ending]
        assert segments(os.getpid()) - before == set()  # what we sent: gone with our tensors
        if ending == "sigkill":  # what only the killed child held waits for a sweep
            assert len(segments(child.pid)) == 5
            shared_storage.sweep()  # as the main process does at exit
        assert segments(child.pid) == set()


def test_no_segment_outlives_a_program_whose_children_are_killed(tmp_path):
    """The whole story as a program: the main process sends, children die by SIGKILL
    and by an exception, a message stays unread, the main process exits: nothing is
    left, with no sweep called by the program itself."""
    script = tmp_path / "program.py"
    script.write_text(
        textwrap.dedent("""
        import os, signal, sys
        sys.path[:0] = sys.argv[1:]
        import minitorch
        import minitorch.multiprocessing as mp
        from tests import mp_workers

        if __name__ == "__main__":
            kept = minitorch.zeros(3).share_memory_()  # alive until the very end
            unread = mp.Queue()
            unread.put(minitorch.ones(2))  # a message nobody receives
            for method, ending in (("fork", "exception"), ("spawn", "sigkill")):
                ctx = mp.get_context(method)
                inbox, outbox = ctx.Queue(), ctx.Queue()
                child = ctx.Process(target=mp_workers.batches_then_end,
                                    args=(inbox, outbox, ending))
                child.start()
                inbox.put([minitorch.zeros(2) for _ in range(50)])
                outbox.get(timeout=120)
                inbox.put(None)
                if ending == "sigkill":
                    outbox.get(timeout=120)
                    os.kill(child.pid, signal.SIGKILL)
                child.join(120)
                print(child.pid)
            print(os.getpid())
    """)
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, str(script), root], capture_output=True, text=True,
                          timeout=4 * TIMEOUT, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    pids = [int(line) for line in done.stdout.split()]
    assert len(pids) == 3
    assert segments(*pids) == set()
    assert "resource_tracker" not in done.stderr  # nothing it had to clean, or warn about


def test_a_killed_main_process_leaves_nothing_either(tmp_path):
    """Killed itself, the main process runs no cleanup: the resource tracker removes
    what it registered once every process of the program is gone."""
    script = tmp_path / "killed.py"
    script.write_text(
        textwrap.dedent("""
        import os, signal, sys
        sys.path[:0] = sys.argv[1:]
        import minitorch
        import minitorch.multiprocessing as mp
        from tests import mp_workers

        if __name__ == "__main__":
            kept = [minitorch.zeros(3).share_memory_() for _ in range(3)]
            ctx = mp.get_context("fork")
            outbox = ctx.Queue()
            child = ctx.Process(target=mp_workers.send_and_exit, args=(outbox,))
            child.start()
            child.join(120)
            received = outbox.get(timeout=120)  # made by the child, held here
            print(child.pid, os.getpid(), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, str(script), root], capture_output=True, text=True,
                          timeout=2 * TIMEOUT, cwd=tmp_path)  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr
    pids = [int(pid) for pid in done.stdout.split()]
    deadline = time.monotonic() + 30  # the tracker notices within moments
    while segments(*pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert segments(*pids) == set()
