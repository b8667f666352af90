"""The chapter 10 checks (memory and asynchrony) accept the reference solutions and reject
typical wrong answers with an explanation that names the mistake."""

from __future__ import annotations

import pytest
import torch

import minitorch
from minitorch.course import CheckFailed
from minitorch.course.memory_checks import (
    BLOCK_CASES,
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
