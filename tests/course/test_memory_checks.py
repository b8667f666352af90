"""The chapter 10 checks (memory and asynchrony) accept the reference solutions and reject
typical wrong answers with an explanation that names the mistake."""

from __future__ import annotations

import pytest
import torch

import minitorch
from minitorch import memory
from minitorch.course import CheckFailed
from minitorch.course.memory_checks import (
    BLOCK_CASES,
    HOLD_SECONDS,
    LINES,
    RangeStream,
    check_block_bytes,
    check_predicted_bytes,
    check_produce_and_consume,
    check_split_range,
    measured_block_bytes,
    measured_line_bytes,
)
from minitorch.utils.data import DataLoader, get_worker_info
from tests.course.test_checkers import load_solutions

ch10 = load_solutions("10_memory_and_asynchrony")


@pytest.fixture
def emulator():
    from minitorch.backends import cuda

    with cuda.emulated():  # (not use_emulator(): later tests expect no CUDA device here)
        yield
        minitorch.cuda.synchronize()


def rejects(check, wrong, *words: str) -> None:
    with pytest.raises(CheckFailed) as failure:
        check(wrong)
    for word in words:
        assert word in str(failure.value), str(failure.value)


def test_reference_solutions_pass(emulator) -> None:
    assert check_block_bytes(ch10.block_bytes)
    assert check_predicted_bytes(ch10.predicted_bytes)
    assert check_split_range(ch10.split_range)
    assert check_produce_and_consume(ch10.produce_and_consume)


def test_unfinished_exercises_are_not_done_yet(emulator, capsys) -> None:
    def not_done(*args):
        raise NotImplementedError

    assert not check_block_bytes(not_done)
    assert not check_predicted_bytes(not_done)
    assert not check_split_range(not_done)  # raised inside the worker processes
    assert not check_produce_and_consume(not_done)
    assert capsys.readouterr().out.count("not done yet") == 4


# ----- the measurements the checks compare with ----------------------------------------------


def test_measured_block_sizes_are_the_bytes_rounded_up_to_512() -> None:
    for shape, dtype in BLOCK_CASES:
        requested = torch.empty(shape, dtype=getattr(torch, str(dtype).split(".")[1])).nbytes
        assert measured_block_bytes(shape, dtype) == -(-requested // 512) * 512


def test_measured_lines_match_the_reference_predictions() -> None:
    assert measured_line_bytes() == ch10.predicted_bytes()
    assert [line for line, _ in LINES] == list(ch10.predicted_bytes())


# ----- wrong answers ------------------------------------------------------------------------------


def test_block_bytes_rejects_no_rounding() -> None:
    def requested(shape, dtype):
        return minitorch.empty(shape, dtype=dtype).numel() * dtype.itemsize

    rejects(check_block_bytes, requested, "4000", "multiple of 512")


def test_block_bytes_rejects_element_counts() -> None:
    rejects(check_block_bytes, lambda shape, dtype: minitorch.empty(shape, dtype=dtype).numel(),
            "expected: 4096", "itemsize")  # fmt: skip


def test_block_bytes_rejects_a_block_for_an_empty_tensor() -> None:
    def at_least_one_block(shape, dtype):
        return max(512, ch10.block_bytes(shape, dtype))

    rejects(check_block_bytes, at_least_one_block, "no elements holds no block")


def test_predictions_that_count_views_as_copies_are_rejected() -> None:
    def views_copy():
        wrong = dict(ch10.predicted_bytes())
        wrong["xt = x.t()"] = 12288
        return wrong

    rejects(check_predicted_bytes, views_copy, "xt = x.t()", "a view")


def test_predictions_that_keep_the_temporary_are_rejected() -> None:
    def keeps_temporary():
        wrong = dict(ch10.predicted_bytes())
        wrong["s = (x + x).sum()"] = 12288 + 512
        return wrong

    rejects(check_predicted_bytes, keeps_temporary, "temporary")


def test_predictions_left_as_none_or_missing_are_explained() -> None:
    def with_none():
        return {line: None for line, _ in LINES}

    rejects(check_predicted_bytes, with_none, "replace None", "x = minitorch.randn(100, 30)")
    rejects(check_predicted_bytes, lambda: {}, "no prediction for")
    rejects(check_predicted_bytes, lambda: [0] * len(LINES), "dict")


def test_split_that_leaves_every_worker_the_whole_range_is_rejected() -> None:
    rejects(check_split_range, lambda worker_id: None, "came 2 times", "get_worker_info().dataset")


def test_split_that_drops_the_remainder_is_rejected() -> None:
    def floor_shares(worker_id):
        info = get_worker_info()
        dataset = info.dataset
        share = (dataset.end - dataset.start) // info.num_workers  # 14 // 3: 16 never comes
        first = dataset.start + worker_id * share
        dataset.start, dataset.end = first, first + share

    rejects(check_split_range, floor_shares, "never came", "remainder")


def test_split_that_raises_shows_the_error() -> None:
    def broken(worker_id):
        return get_worker_info().datasett  # a typo

    rejects(check_split_range, broken, "AttributeError", "datasett")


def test_reference_split_covers_the_range_once() -> None:
    loader = DataLoader(RangeStream(3, 11), batch_size=None, num_workers=3,
                        worker_init_fn=ch10.split_range, multiprocessing_context="fork")  # fmt: skip
    assert sorted(int(n) for n in loader) == list(range(3, 11))
    assert [int(n) for n in RangeStream(2, 5)] == [2, 3, 4]


def test_consumer_without_wait_stream_is_rejected(emulator) -> None:
    def racing(x, producer, consumer):
        with minitorch.cuda.stream(producer):
            y = x * 2
        with minitorch.cuda.stream(consumer):
            return y + 1

    rejects(check_produce_and_consume, racing, "race", "wait_stream")


def test_waiting_on_the_host_is_rejected(emulator) -> None:
    def host_waits(x, producer, consumer):
        with minitorch.cuda.stream(producer):
            y = x * 2
        producer.synchronize()
        with minitorch.cuda.stream(consumer):
            return y + 1

    rejects(check_produce_and_consume, host_waits, "waited on the host", "wait_stream")


def test_work_on_the_wrong_stream_is_rejected(emulator) -> None:
    def one_stream(x, producer, consumer):
        with minitorch.cuda.stream(consumer):
            return x * 2 + 1

    rejects(check_produce_and_consume, one_stream, "no kernel ran on the producer stream")


def test_wrong_values_are_rejected(emulator) -> None:
    def adds_two(x, producer, consumer):
        with minitorch.cuda.stream(producer):
            y = x * 2
        consumer.wait_stream(producer)
        with minitorch.cuda.stream(consumer):
            return y + 2

    rejects(check_produce_and_consume, adds_two, "z is wrong", "3 x 4")


def test_a_cold_kernel_cache_is_not_taken_for_the_host_waiting(emulator, monkeypatch) -> None:
    """On a fresh machine each kernel's first launch compiles it on the host (about 1.7 s
    on the emulator, more on a loaded machine). Compiled while the check holds the
    producer shut, the kernels of a correct answer made it return after the gate opened,
    and the check said it "waited on the host" (seen on a first run). Here every compile
    takes longer than the hold, and the kernels compiled so far are forgotten."""
    import time

    from minitorch.backends import cuda_emulator
    from minitorch.backends.cuda.device import runtime
    from minitorch.dispatch import plans

    machine = runtime()
    monkeypatch.setattr(machine, "functions", {})
    monkeypatch.setattr(machine, "modules", {})
    plans.cache.clear()  # (a plan holds its kernel)
    build, builds = cuda_emulator._cached_build, []

    def slow_build(*args, **kwargs):
        builds.append(args[0])
        time.sleep(HOLD_SECONDS + 0.5)
        return build(*args, **kwargs)

    monkeypatch.setattr(cuda_emulator, "_cached_build", slow_build)
    assert check_produce_and_consume(ch10.produce_and_consume)
    assert builds  # the kernels were compiled anew: the case above was tested


def test_the_cycle_collector_never_runs_between_two_readings_of_the_allocator(monkeypatch) -> None:
    """The cycle collector frees older tensors caught in reference cycles whenever it runs;
    inside a measured line that makes the line seem to allocate less (CI once saw a
    ``randn(100, 30)`` measured as 0 bytes). With the collector due after every
    allocation, no collection may start between a reading before and one after."""
    import gc

    events: list[str] = []
    reading = memory.memory_allocated

    def read_and_note() -> int:
        events.append("read")
        return reading()

    def note_collection(phase: str, info: dict) -> None:
        if phase == "start":
            events.append("collect")

    monkeypatch.setattr(memory, "memory_allocated", read_and_note)
    threshold = gc.get_threshold()
    gc.callbacks.append(note_collection)
    gc.set_threshold(1)
    try:
        measured_line_bytes()
        measured_block_bytes((1000,), minitorch.float32)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(note_collection)
    pairs, inside = 0, False
    for event in events:
        if event == "read":
            pairs, inside = pairs + inside, not inside
        else:
            assert not inside, "the cycle collector ran between the readings before and after a line"
    assert pairs == len(LINES) + 1
