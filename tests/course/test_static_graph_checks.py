"""The chapter 9 checks (static graphs) accept the reference solutions and reject typical
wrong answers with an explanation that names the mistake."""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.compiler import Node
from minitorch.compiler.replay import flatten_outputs
from minitorch.course import CheckFailed
from minitorch.course.static_graph_checks import (
    as_array,
    check_buffer_bytes,
    check_fuse_add_tanh,
    reference_buffer_bytes,
)
from tests.course.test_checkers import load_solutions

ch9 = load_solutions("09_static_graphs")


def rejects(check, wrong, *words: str) -> None:
    with pytest.raises(CheckFailed) as failure:
        check(wrong)
    for word in words:
        assert word in str(failure.value), str(failure.value)


def test_reference_solutions_pass() -> None:
    assert check_buffer_bytes(ch9.buffer_bytes)
    assert check_fuse_add_tanh(ch9.fuse_add_tanh)


def test_unfinished_exercises_are_not_done_yet(capsys) -> None:
    def not_done(graph):
        raise NotImplementedError

    assert not check_buffer_bytes(not_done)
    assert not check_fuse_add_tanh(not_done)
    assert capsys.readouterr().out.count("not done yet") == 2


def test_buffer_bytes_rejects_element_counts() -> None:
    def counts_elements(graph):
        total = {}
        for buffer in graph.buffers:
            total[buffer.kind] = total.get(buffer.kind, 0) + buffer.count
        return total

    rejects(check_buffer_bytes, counts_elements, "itemsize")


def test_buffer_bytes_rejects_a_missing_kind() -> None:
    def without_state(graph):
        return {k: v for k, v in reference_buffer_bytes(graph).items() if k != "state"}

    rejects(check_buffer_bytes, without_state, "training step")


def _fuse_every_pair(graph, kernel, keep_returned=True):
    """Fuse each add followed by its tanh, asking nothing else when ``keep_returned`` is
    false (the add's result may be returned or read elsewhere)."""
    kept, skip_next = [], False
    for node, following in zip(graph.nodes, graph.nodes[1:] + [None]):
        if skip_next:
            skip_next = False
            continue
        if (node.primitive == "zip" and node.kernel == "add" and following is not None
                and following.primitive == "map" and following.kernel == "tanh"
                and following.reads[0] == node.writes[0]):  # fmt: skip
            returned = flatten_outputs(graph.outputs)
            if keep_returned and any(s.operand.buffer == node.writes[0].buffer for s in returned):
                kept.append(node)
                continue
            _, _, a, b = node.args
            kept.append(Node("fused", (following.writes[0], a, b), node.device_type, code=kernel))
            skip_next = True
            continue
        kept.append(node)
    graph.nodes = kept
    return graph.renumber()


def test_fusion_that_drops_a_returned_temp_is_rejected() -> None:
    rejects(check_fuse_add_tanh, lambda g: _fuse_every_pair(g, ch9.add_tanh_kernel, keep_returned=False),
            "number of nodes", "returned")  # fmt: skip


def test_fused_kernel_that_ignores_strides_is_rejected() -> None:
    def flat_kernel(out, a, b):  # reads the storages in order: wrong for a broadcast row
        n = out.storage.size
        out.storage[:] = np.tanh(a.storage[:n] + np.resize(b.storage, n))

    rejects(check_fuse_add_tanh, lambda g: _fuse_every_pair(g, flat_kernel), "result 0", "strides")


def test_fusion_that_fuses_nothing_is_rejected() -> None:
    rejects(check_fuse_add_tanh, lambda graph: graph, "number of nodes")


def test_as_array_is_a_writable_strided_view() -> None:
    from minitorch.backends import Strided

    storage = np.arange(12, dtype=np.float32)
    view = as_array(Strided(storage, (2, 3), (1, 4), 1))  # a transposed slice
    np.testing.assert_array_equal(view, [[1, 5, 9], [2, 6, 10]])
    view[1, 2] = -1
    assert storage[10] == -1
