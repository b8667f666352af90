"""native_batch_norm, native_layer_norm, native_group_norm and native_dropout_backward
against torch: the three outputs (values, shapes, dtypes), the running buffers, which
outputs carry a gradient, and the gradients, on non-contiguous inputs."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def pair(shape, seed, transpose=False, dtype="float64"):
    """The same values as a torch leaf and a minitorch leaf (transposed: a strided view)."""
    values = np.random.default_rng(seed).standard_normal(shape)
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    m = minitorch.tensor(values, dtype=getattr(minitorch, dtype))
    if transpose:
        t, m = t.transpose(0, -1), m.transpose(0, -1)
    return t.requires_grad_(), m.requires_grad_()


def check(actual, expected):
    for a, e in zip(actual, expected, strict=True):
        assert tuple(a.shape) == tuple(e.shape) and str(a.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        assert a.requires_grad == e.requires_grad
        np.testing.assert_allclose(a.detach().numpy(), e.detach().numpy(), rtol=1e-6, atol=1e-7)


def check_grads(actual, expected, m_leaves, t_leaves, seed=0):
    """d sum(c * output) / d leaves over every output that carries a gradient."""
    cots = [np.random.default_rng(seed + i).standard_normal(tuple(e.shape)) for i, e in enumerate(expected)]
    used = [i for i, e in enumerate(expected) if e.requires_grad]
    tg = torch.autograd.grad([expected[i] for i in used], t_leaves, [torch.tensor(cots[i]) for i in used])
    m_cots = [minitorch.tensor(cots[i]) for i in used]
    mg = minitorch.autograd.grad([actual[i] for i in used], m_leaves, m_cots)
    for a, e in zip(mg, tg, strict=True):
        np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(training):
    tx, mx = pair((4, 3, 5), 0, transpose=True)  # [5, 3, 4] over a transposed storage
    tw, mw = pair((3,), 1)
    tb, mb = pair((3,), 2)
    t_running = [torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64),
                 torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)]  # fmt: skip
    m_running = [minitorch.tensor(r.numpy()) for r in t_running]
    expected = torch.native_batch_norm(tx, tw, tb, *t_running, training, 0.3, 1e-3)
    actual = minitorch.native_batch_norm(mx, mw, mb, *m_running, training, 0.3, 1e-3)
    check(actual, expected)  # evaluation: two empty tensors; training: per-channel (3,)
    for m, t in zip(m_running, t_running, strict=True):  # the buffers moved as torch's did
        np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-12)
    check_grads(actual, expected, [mx, mw, mb], [tx, tw, tb])


def test_native_batch_norm_without_buffers_or_affine():
    tx, mx = pair((3, 2, 4), 3)
    check(minitorch.native_batch_norm(mx, None, None, None, None, True, 0.1, 1e-5),
          torch.native_batch_norm(tx, None, None, None, None, True, 0.1, 1e-5))  # fmt: skip
    with pytest.raises(RuntimeError):  # (torch crashes here: its kernel reads the missing buffers)
        minitorch.native_batch_norm(mx, None, None, None, None, False, 0.1, 1e-5)


def test_native_layer_norm():
    tx, mx = pair((3, 4, 5), 4, transpose=True)  # [5, 4, 3]
    tw, mw = pair((4, 3), 5)
    expected = torch.native_layer_norm(tx, (4, 3), tw, None, 1e-5)
    actual = minitorch.native_layer_norm(mx, (4, 3), mw, None, 1e-5)
    check(actual, expected)  # mean and rstd: (5, 1, 1), no gradient
    check_grads(actual, expected, [mx, mw], [tx, tw])
    empty = torch.native_layer_norm(torch.zeros(0, 3), (3,), None, None, 1e-5)
    check(minitorch.native_layer_norm(minitorch.zeros(0, 3), (3,), None, None, 1e-5), empty)


def test_native_group_norm_statistics_carry_gradients():
    tx, mx = pair((3, 6, 2), 6)  # N=3, C=6, HxW=2
    tw, mw = pair((6,), 7)
    tb, mb = pair((6,), 8)
    expected = torch.native_group_norm(tx, tw, tb, 3, 6, 2, 3, 0.5)
    actual = minitorch.native_group_norm(mx, mw, mb, 3, 6, 2, 3, 0.5)
    check(actual, expected)  # mean and rstd (3, 3), part of the graph
    check_grads(actual, expected, [mx, mw, mb], [tx, tw, tb])
    with pytest.raises(NotImplementedError):
        integers = minitorch.zeros(1, 6, 3, dtype=minitorch.int64)
        minitorch.native_group_norm(integers, None, None, 1, 6, 3, 2, 1e-5)
    with pytest.raises(RuntimeError):
        minitorch.native_group_norm(mx, None, None, 3, 6, 2, 4, 1e-5)  # 6 channels in 4 groups
    strided = (tx.detach().transpose(0, 2), mx.detach().transpose(0, 2))  # [2, 6, 3], not contiguous
    with pytest.raises(RuntimeError):
        torch.native_group_norm(strided[0], None, None, 2, 6, 3, 3, 1e-5)
    with pytest.raises(RuntimeError):
        minitorch.native_group_norm(strided[1], None, None, 2, 6, 3, 3, 1e-5)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_native_dropout_backward(dtype):
    grad = np.arange(-6, 6).reshape(3, 4)
    mask = (grad % 3 != 0)
    expected = torch.ops.aten.native_dropout_backward(torch.tensor(grad, dtype=getattr(torch, dtype)).t(),
                                                      torch.tensor(mask).t(), 2.0)  # fmt: skip
    actual = minitorch.native_dropout_backward(minitorch.tensor(grad, dtype=getattr(minitorch, dtype)).t(),
                                               minitorch.tensor(mask).t(), 2.0)  # fmt: skip
    assert actual.dtype == minitorch.float32  # an integer gradient times the float scale
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())
