"""``register_post_accumulate_grad_hook`` and the engine's ``queue_callback``: what
``DistributedDataParallel`` builds on, checked against PyTorch's own."""

import pytest
import torch

import minitorch
from minitorch.autograd.engine import queue_callback


def _record(lib, queue):
    """Backward twice through ``w * w + w`` (w used twice), with a post-accumulate hook that
    notes ``w.grad`` and queues a final callback noting it again."""
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    events = []

    def hook(p):
        events.append(("hook", p.grad.tolist()))
        queue(lambda: events.append(("final", p.grad.tolist())))

    handle = w.register_post_accumulate_grad_hook(hook)
    for _ in range(2):
        (w * w + w).sum().backward()
    handle.remove()
    (w * 3).sum().backward()
    return events, w.grad.tolist()


def test_hooks_and_callbacks_run_as_in_pytorch():
    theirs = _record(torch, torch.autograd.Variable._execution_engine.queue_callback)
    ours = _record(minitorch, queue_callback)
    assert ours == theirs
    assert ours[0] == [("hook", [3.0, -3.0, 7.0]), ("final", [3.0, -3.0, 7.0]),
                       ("hook", [6.0, -6.0, 14.0]), ("final", [6.0, -6.0, 14.0])]  # fmt: skip


def test_callbacks_run_after_every_hook_and_may_queue_more():
    a = minitorch.randn(4, requires_grad=True)
    b = minitorch.randn(4, requires_grad=True)
    order = []
    for name, p in (("a", a), ("b", b)):
        p.register_post_accumulate_grad_hook(
            lambda p, name=name: (order.append(name), queue_callback(lambda: order.append("end")))
        )
    (a * b).sum().backward()
    queue_more = []
    b.register_post_accumulate_grad_hook(lambda p: queue_callback(lambda: queue_callback(
        lambda: queue_more.append("second"))))  # fmt: skip
    (a * b).sum().backward()
    assert sorted(order[:2]) == ["a", "b"] and order[2:4] == ["end", "end"]
    assert queue_more == ["second"]


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="only be installed during backward"):
        queue_callback(lambda: None)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (minitorch.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        minitorch.ones(2).register_post_accumulate_grad_hook(print)


def test_a_backward_that_raises_runs_no_callback_and_leaves_none_queued():
    w = minitorch.ones(2, requires_grad=True)
    ran = []

    def hook(p):
        queue_callback(lambda: ran.append("callback"))
        raise ValueError("hook failed")

    handle = w.register_post_accumulate_grad_hook(hook)
    with pytest.raises(ValueError, match="hook failed"):
        (w * 2).sum().backward()
    handle.remove()
    assert ran == []
    with pytest.raises(RuntimeError, match="only be installed during backward"):
        queue_callback(lambda: None)  # the failed walk's list is gone
    (w * 2).sum().backward()
    assert w.grad.tolist() == [4.0, 4.0]
