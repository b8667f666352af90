"""Replays that overlap, passes in any order, returned views: a replay gives what eager gives.

Four ways a replay once returned a wrong answer without a word:

* two threads replaying one compiled function shared the graph's temps;
* two CUDA streams did too (a replay only queues its kernels, so they overlap);
* fusion placed after memory planning read a temp whose storage planning had lent out;
* a returned view of an argument (``x[0]``, ``x.t()``) came back as a copy.

The oracle is always the same function run eagerly. Overlaps are made deterministic:
a test pass puts a *pause* node into the graph, after its first kernel. Its kernel is a
Python function, so "thread B replays while thread A is between two kernels" (or "stream
2 replays while stream 1 is held after its first kernel") is an order the test sets up,
not a race it hopes to hit. Every wait is bounded.
"""

from __future__ import annotations

import copy
import itertools
import sys
import threading

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.compiler.graph import Node
from minitorch.compiler.passes import PASSES, fuse_elementwise, plan_memory

TIMEOUT = 60  # seconds: only a guard against hanging, never reached when things work


def pause_after_first_kernel(action):
    """A pass: a node after the graph's first kernel whose kernel calls ``action()``."""

    def insert_pause(graph):
        first = graph.nodes[0]
        pause = Node("fused", (first.writes[0],), first.device_type, "pause", code=lambda _out: action())
        graph.nodes.insert(1, pause)
        return graph.renumber()

    return insert_pause


def doubled_sum(x):
    return (x * 2.0 + 1.0).sum()


def replaying(fn, *args, passes):
    """``fn`` compiled, called until its graph is captured (the next call replays)."""
    compiled = minitorch.compile(fn, passes=passes)
    compiled(*args), compiled(*args)  # warm-up, capture
    assert compiled.graph is not None
    return compiled


def the_program(compiled):
    (program,) = compiled.programs.values()
    return program


def in_thread(results, name, fn, *args):
    def body():
        try:
            results[name] = fn(*args)
        except BaseException as error:  # noqa: BLE001 - reported by the test's assertion
            results[name] = error

    thread = threading.Thread(target=body)
    thread.start()
    return thread


# ----- threads ----------------------------------------------------------------------------


def test_a_thread_replaying_while_another_is_between_two_kernels_gets_its_own_answer():
    # Before: thread B's replay wrote the temp that thread A's first kernel had filled,
    # and A summed B's values.
    a_paused, b_done = threading.Event(), threading.Event()
    pausing = []  # the thread whose replay pauses

    def pause():
        if pausing and threading.current_thread() is pausing[0]:
            pausing.clear()
            a_paused.set()
            b_done.wait(TIMEOUT)

    xa, xb = minitorch.ones(5), minitorch.arange(5.0)
    compiled = replaying(doubled_sum, xa, passes=[pause_after_first_kernel(pause)])
    results: dict = {}

    def replay_a():
        pausing.append(threading.current_thread())
        return compiled(xa)

    def replay_b():
        try:
            assert a_paused.wait(TIMEOUT)
            return compiled(xb)
        finally:
            b_done.set()

    threads = [in_thread(results, "a", replay_a), in_thread(results, "b", replay_b)]
    for thread in threads:
        thread.join(TIMEOUT)
    assert results["a"].item() == doubled_sum(xa).item()  # 15
    assert results["b"].item() == doubled_sum(xb).item()  # 25
    assert the_program(compiled).workspaces.count == 2  # B could not use A's temps


def test_two_threads_replaying_in_a_loop_match_eager():
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))

    def forward(x):
        with minitorch.no_grad():
            return model(x).softmax(1)

    inputs = [minitorch.randn(8, 4) for _ in range(2)]
    expected = [forward(x).numpy() for x in inputs]
    compiled = replaying(forward, inputs[0], passes=None)
    start = threading.Barrier(2, timeout=TIMEOUT)  # both threads replay at once

    def calls(x):
        start.wait()
        return [compiled(x).numpy() for _ in range(40)]

    results: dict = {}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as Python can: more overlap
    try:
        threads = [in_thread(results, i, calls, x) for i, x in enumerate(inputs)]
        for thread in threads:
            thread.join(TIMEOUT)
    finally:
        sys.setswitchinterval(interval)
    for i in range(2):
        wrong = [k for k, got in enumerate(results[i]) if not np.allclose(got, expected[i], rtol=1e-6)]
        assert wrong == [], f"thread {i}: calls {wrong} differ from eager"


# ----- CUDA streams (on the emulator) -------------------------------------------------------


@pytest.fixture
def emulated_cuda():
    from minitorch.backends import cuda, cuda_emulator

    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    with cuda.emulated():
        yield


def test_a_replay_on_another_stream_while_the_first_is_held_gets_its_own_answer(emulated_cuda):
    # Before: stream 2 replayed into the temps stream 1's first kernel had filled, and
    # stream 1's sum read stream 2's values.
    reached, opened = threading.Event(), threading.Event()
    holding = []

    def gate():
        reached.set()
        opened.wait(TIMEOUT)

    def pause():  # on the host, while the replay queues its kernels: hold the stream here
        if holding:
            holding.clear()
            minitorch.cuda.current_stream()._queue.submit("gate", gate)

    x1, x2 = minitorch.ones(5, device="cuda"), minitorch.arange(5.0).to("cuda")
    compiled = replaying(doubled_sum, x1, passes=[pause_after_first_kernel(pause)])
    minitorch.cuda.synchronize()
    first, second = minitorch.cuda.Stream(), minitorch.cuda.Stream()
    try:
        holding.append(True)
        with minitorch.cuda.stream(first):
            r1 = compiled(x1)
        assert reached.wait(TIMEOUT)  # stream 1 ran its first kernel and is held
        with minitorch.cuda.stream(second):
            r2 = compiled(x2)
        second.synchronize()
    finally:
        opened.set()
    assert r1.item() == doubled_sum(x1).item()
    assert r2.item() == doubled_sum(x2).item()
    assert the_program(compiled).workspaces.count == 2


def test_replays_queued_on_two_held_streams_match_eager(emulated_cuda):
    # Both streams are held while eight replays are queued on them, then run together,
    # their kernels interleaved as the emulator's scheduler picks them.
    def f(x, y):
        return ((x - y) * (x - y).exp()).sum(0)

    pairs = [(minitorch.randn(6, 4).to("cuda"), minitorch.randn(4).to("cuda")) for _ in range(2)]
    expected = [f(x, y).cpu().numpy() for x, y in pairs]
    compiled = replaying(f, *pairs[0], passes=None)
    minitorch.cuda.synchronize()
    streams = [minitorch.cuda.Stream(), minitorch.cuda.Stream()]
    gates = [threading.Event(), threading.Event()]
    got = []
    try:
        for stream, gate in zip(streams, gates):
            stream._queue.submit("gate", gate.wait)
        for _ in range(4):
            for stream, (x, y) in zip(streams, pairs):
                with minitorch.cuda.stream(stream):
                    got.append(compiled(x, y))
    finally:
        for gate in gates:
            gate.set()
    minitorch.cuda.synchronize()
    for k, result in enumerate(got):
        np.testing.assert_allclose(result.cpu().numpy(), expected[k % 2], rtol=1e-6, err_msg=f"replay {k}")
    assert the_program(compiled).workspaces.count == 2  # one per stream, reused on it


def test_replays_on_one_stream_keep_one_set_of_temps(emulated_cuda):
    x = minitorch.randn(5).to("cuda")
    compiled = replaying(doubled_sum, x, passes=None)
    side = minitorch.cuda.Stream()
    for _ in range(5):
        with minitorch.cuda.stream(side):
            compiled(x)  # queued behind the last replay on the same stream: no new temps
    minitorch.cuda.synchronize()
    assert the_program(compiled).workspaces.count == 1


# ----- pass order -------------------------------------------------------------------------


def two_sums(a, b):
    return (a.sum() + 0.0) + (b.sum() + 0.0)


def exp_chain(x, y):
    c = minitorch.tensor([1.0, 2.0, 3.0, 4.0])
    return ((x - y) * (x - y).exp() + c.exp()).sum(0) * 2.0


def mlp_loss():
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))

    def loss(x, y):
        with minitorch.no_grad():
            return nn.functional.mse_loss(model(x), y) * 1.0 + 0.0

    return loss


PROGRAMS = {
    "two_sums": (lambda: two_sums, lambda: (minitorch.full((4,), 2.0), minitorch.full((4,), 4.0))),
    "exp_chain": (lambda: exp_chain, lambda: (minitorch.randn(5, 4), minitorch.randn(4))),
    "mlp": (mlp_loss, lambda: (minitorch.randn(6, 3), minitorch.randn(6, 1))),
}


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_order_of_the_passes_equals_eager(program):
    # Before: plan_memory then fuse_elementwise returned sum(b) + sum(b) for two_sums.
    make_fn, make_args = PROGRAMS[program]
    fn, names = make_fn(), list(PASSES)
    minitorch.manual_seed(1)
    args, other = make_args(), make_args()
    expected = fn(*other).numpy()
    for order in itertools.permutations(names):
        compiled = replaying(fn, *args, passes=list(order))
        got = compiled(*other).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=" -> ".join(order))
        assert compiled.graph.passes[-1] == "plan_memory"  # named anywhere, it runs last


def test_planning_a_graph_then_fusing_it_by_hand_drops_the_stale_plan():
    a, b = minitorch.full((4,), 2.0), minitorch.full((4,), 4.0)
    compiled = replaying(two_sums, a, b, passes=[])
    graph = plan_memory(copy.deepcopy(compiled.graph))
    assert graph.placement  # two temps share a storage ...
    graph = fuse_elementwise(graph)  # ... which fusion would now read out of turn
    assert graph.placement == {} and graph.memory == {}
    assert minitorch.compiler.replay(graph, [a, b]).item() == two_sums(a, b).item()


# ----- returned views -----------------------------------------------------------------------


def views_of_the_argument(x):
    return x[0], x.t(), x, x.unsqueeze(0).expand(2, 2, 3)


@pytest.mark.parametrize("passes", [None, []], ids=["default passes", "no passes"])
def test_a_returned_view_of_an_argument_stays_a_view_of_it(passes):
    # Before: after the capture each of these came back as a copy of x.
    x = minitorch.arange(6.0).reshape(2, 3)
    compiled = replaying(views_of_the_argument, x, passes=passes)
    new = minitorch.arange(6.0).reshape(2, 3) * 10
    got, eager = compiled(new), views_of_the_argument(new)
    for view, expected in zip(got, eager):
        assert view._storage is new._storage and view._storage is expected._storage
        assert (view.shape, view.stride(), view.storage_offset()) == (
            expected.shape, expected.stride(), expected.storage_offset())  # fmt: skip
    new.add_(1)  # a write into the argument shows in every view, as eagerly
    for view, expected in zip(got, eager):
        np.testing.assert_array_equal(view.numpy(), expected.numpy())
    assert got[0]._base is new and got[0]._version == new._version


def test_the_plain_replay_returns_the_same_views():
    x = minitorch.arange(6.0).reshape(2, 3)
    compiled = replaying(views_of_the_argument, x, passes=[])
    new = minitorch.ones(2, 3)
    got = minitorch.compiler.replay(compiled.graph, [new])
    assert all(view._storage is new._storage for view in got)


def test_a_returned_parameter_is_the_parameter_s_memory():
    layer = nn.Linear(3, 2)

    def weights_and_output(x):
        with minitorch.no_grad():
            return layer.weight.t(), layer(x)

    x = minitorch.randn(4, 3)
    compiled = replaying(weights_and_output, x, passes=None)
    weight_t, out = compiled(x)
    assert weight_t._storage is layer.weight._storage
    np.testing.assert_allclose(out.numpy(), weights_and_output(x)[1].numpy(), rtol=1e-6)
    again, _ = compiled(x)
    assert out._storage is not compiled(x)[1]._storage  # a computed result is new on each call
    assert again._storage is layer.weight._storage
