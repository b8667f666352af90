"""``describe``: what a widget shows about a tensor. A large tensor's summary is read from
its layout (issue 29): a broadcast view's summary costs what its distinct cells cost, not
what its element count would, and equals the summary of the same values made contiguous
(the oracle: NumPy over a materialized copy of a small case)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minitorch as mt
from minitorch.widgets.tensor_info import describe, summary


def oracle_summary(t: mt.Tensor) -> str:
    """The summary of ``t``'s elements, made contiguous first (every element read)."""
    return summary(np.array(t.detach().float().numpy() if t.dtype is mt.bfloat16 else t.contiguous().numpy()))


@pytest.mark.parametrize(
    "make",
    [
        lambda: mt.randn(3, 1, 4).expand(3, 500, 4),
        lambda: mt.randn(1, 70).expand(9, 70).t(),
        lambda: mt.randn(8, 9)[1::2, ::3].unsqueeze(1).expand(4, 6, 3),
        lambda: mt.tensor([[True], [False], [True]]).expand(3, 40),
        lambda: mt.tensor([1.0, float("nan"), -float("inf"), 2.5]).expand(30, 4),
        lambda: mt.arange(12, dtype=mt.int64).reshape(3, 4).expand(10, 3, 4),
        lambda: mt.randn(2, 1, 50).to(mt.bfloat16).expand(2, 3, 50),
        lambda: mt.randn(200),
    ],
)
def test_summary_of_a_view_equals_the_summary_of_its_contiguous_copy(make):
    t = make()
    info = describe(t)
    assert t.numel() > 64 and info["numel"] == t.numel()
    assert info["summary"] == oracle_summary(t)
    assert info["strides"] == list(t.stride()) and info["shape"] == list(t.shape)


def test_a_huge_broadcast_view_is_summarized_without_materializing_it():
    one = mt.tensor(3.5)
    huge = one.expand(6000, 6000)  # 36 million elements of one storage cell
    tracemalloc.start()
    try:
        info = describe(huge)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info["summary"] == summary(np.array([3.5], np.float32)) == "min 3.5  mean 3.5  max 3.5"
    assert info["numel"] == 36_000_000 and info["strides"] == [0, 0]
    assert peak < 2**20, f"describe allocated {peak} bytes for a view of one cell"
    flags = describe(mt.tensor([True, False]).expand(10**6, 2))
    assert flags["summary"] == "1000000 of 2000000 true"


def test_small_and_empty_tensors_show_their_values():
    assert describe(mt.tensor([[1.0, 2.0]]).expand(3, 2))["values"] == [[1.0, 2.0]] * 3
    assert describe(mt.zeros(100, 0))["values"] == [[]] * 100
    assert describe(mt.zeros(1, 0).expand(80, 0), max_values=-1)["summary"] == "empty"
