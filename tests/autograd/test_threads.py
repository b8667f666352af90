"""Autograd state per thread (issues 18.3 and 17.6): grad mode and dispatch's op stack
belong to one thread, as in PyTorch, so threads training side by side (the Playground
beside a notebook) neither switch each other's autograd off nor mix up their graphs."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

import minitorch as mt
from minitorch import dispatch


def run_in_threads(work: Callable[[int], object], count: int) -> list:
    """Run ``work(i)`` in ``count`` threads at once; return the results, re-raising the
    first error of any thread in the caller."""
    results: list = [None] * count
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            results[i] = work(i)
        except BaseException as error:  # noqa: BLE001 - handed to the main thread
            errors.append(error)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def test_ops_in_two_threads_leave_grad_mode_on():
    """The repro of issue 18.3: Function.apply flipped a process-wide flag, and two
    threads interleaving their save/restore left it off for good."""
    barrier = threading.Barrier(2)

    def work(i: int) -> bool:
        barrier.wait()
        for _ in range(300):
            (mt.ones(4) * 2).sum()
        return mt.is_grad_enabled()

    assert run_in_threads(work, 2) == [True, True]
    assert mt.is_grad_enabled()


def test_no_grad_in_one_thread_while_another_records_a_graph():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    inside_no_grad = threading.Event()
    recorded = threading.Event()

    def evaluator(_: int) -> tuple:
        with mt.no_grad():
            inside_no_grad.set()
            recorded.wait(10)  # the trainer records its graph while we are in no_grad
            y = x * 2
            return mt.is_grad_enabled(), y.requires_grad, y.grad_fn

    def trainer(_: int) -> tuple:
        inside_no_grad.wait(10)
        y = (x * x).sum()
        enabled = mt.is_grad_enabled()
        recorded.set()
        return enabled, y.requires_grad, y

    results = run_in_threads(lambda i: (evaluator, trainer)[i](i), 2)
    assert results[0] == (False, False, None)
    enabled, requires_grad, y = results[1]
    assert enabled and requires_grad and y.grad_fn.name() == "SumBackward0"
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    assert mt.is_grad_enabled()


def train_mlp(seed: int, steps: int) -> list[np.ndarray]:
    """``steps`` of SGD on a small MLP, data and initial weights drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    x = mt.tensor(rng.standard_normal((4, 3)), dtype=mt.float32)
    y = mt.tensor(rng.standard_normal((4, 1)), dtype=mt.float32)
    w1 = mt.tensor(rng.standard_normal((3, 4)) * 0.5, dtype=mt.float32, requires_grad=True)
    b1 = mt.zeros(4, requires_grad=True)
    w2 = mt.tensor(rng.standard_normal((4, 1)) * 0.5, dtype=mt.float32, requires_grad=True)
    params = [w1, b1, w2]
    for _ in range(steps):
        loss = (((x @ w1 + b1).tanh() @ w2 - y) ** 2).mean()
        loss.backward()
        with mt.no_grad():
            for p in params:
                p -= 0.05 * p.grad
                p.grad = None
    return [p.detach().numpy().copy() for p in params]


def test_four_threads_training_match_a_serial_run():
    """4 threads x 200 steps: every backward works, and each thread ends with exactly the
    parameters a serial run of the same seed gives (no state leaks between threads)."""
    steps = 200
    serial = [train_mlp(seed, steps) for seed in range(4)]
    threaded = run_in_threads(lambda seed: train_mlp(seed, steps), 4)
    for seed in range(4):
        for got, want in zip(threaded[seed], serial[seed]):
            np.testing.assert_array_equal(got, want)
    assert mt.is_grad_enabled()


def test_a_trace_records_only_the_calls_of_its_own_thread():
    stop = threading.Event()
    started = threading.Event()

    def background(_: int) -> None:
        a = mt.ones(5)
        while not stop.is_set():
            a.exp()
            started.set()

    thread = threading.Thread(target=background, args=(0,))
    thread.start()
    try:
        started.wait(10)
        x = mt.ones(3, requires_grad=True)
        with dispatch.trace() as calls:
            for _ in range(20):
                (x * 2).sum().backward()
    finally:
        stop.set()
        thread.join()
    assert [c.kernel for c in calls if c.kernel == "exp"] == []
    ops = {(c.op, c.phase) for c in calls}
    assert ("Mul", "forward") in ops and ("Sum", "forward") in ops
    assert all(phase == "backward" for op, phase in ops if op.endswith("Backward0"))
    assert dispatch.thread_state.op_stack == []


def test_nested_traces_close_in_any_order_of_equal_contents():
    """Two open traces with equal (empty) contents: closing the inner one must not
    remove the outer one (the list of traces compares by identity)."""
    with dispatch.trace() as outer:
        with dispatch.trace() as inner:
            pass
        mt.ones(2).exp()
    assert len(outer) == 1 and len(inner) == 0
