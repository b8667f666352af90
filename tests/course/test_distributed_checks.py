"""The chapter 11 checks (distributed training) accept the reference solutions, say "not
done yet" for unfinished ones, and reject typical wrong answers with a hint that names the
mistake. Their references are measured (a simulated ring, a simulated schedule, a
replayed version counter); here they are also held against the formulas."""

from __future__ import annotations

import pytest

from minitorch.course import CheckFailed
from minitorch.course.distributed_checks import (
    BUBBLE_CASES,
    RING_CASES,
    STALENESS_CASES,
    check_bubble,
    check_ring_bytes,
    check_staleness,
    counted_ring_bytes,
    measured_bubble,
    replayed_staleness,
)
from tests.course.test_checkers import load_solutions

ch11 = load_solutions("11_distributed_training")


def rejects(check, wrong, *words: str) -> None:
    with pytest.raises(CheckFailed) as failure:
        check(wrong)
    for word in words:
        assert word in str(failure.value), str(failure.value)


def test_reference_solutions_pass() -> None:
    assert check_ring_bytes(ch11.ring_bytes)
    assert check_bubble(ch11.bubble)
    assert check_staleness(ch11.staleness)


def test_the_measured_references_equal_the_formulas() -> None:
    for n, numel in RING_CASES:
        assert counted_ring_bytes(n, numel) == pytest.approx(2 * (n - 1) * 4 * numel / n)
    for stages, micro in BUBBLE_CASES:
        assert measured_bubble(stages, micro) == pytest.approx((stages - 1) / (micro + stages - 1))
    assert replayed_staleness([1, 2, 1, 1, 2]) == [0, 1, 1, 0, 2]
    assert all(len(replayed_staleness(case)) == len(case) for case in STALENESS_CASES)


def test_unfinished_exercises_are_not_done_yet(capsys) -> None:
    def not_done(*args):
        raise NotImplementedError

    for check in (check_ring_bytes, check_bubble, check_staleness):
        assert not check(not_done)
    assert capsys.readouterr().out.count("not done yet") == 3


def test_typical_mistakes_are_named() -> None:
    rejects(check_ring_bytes, lambda n, b: (n - 1) * b / n, "reduce-scatter alone")
    rejects(check_ring_bytes, lambda n, b: 2 * (n - 1) * b, "one server")
    rejects(check_ring_bytes, lambda n, b: 2 * b, "limit for many ranks")
    rejects(check_bubble, lambda s, m: (s - 1) / m, "divide by M + S - 1")
    rejects(check_bubble, lambda s, m: (s - 1) / (m + s), "M + S - 1 slots")
    rejects(check_staleness, lambda arrivals: [0] * len(arrivals), "version it pulled")
    rejects(check_staleness, lambda arrivals: list(range(len(arrivals))), "pulls again")
