"""What a tensor says about itself (``minitorch/ops/tensor_queries.py``): ``is_cpu``,
``layout``, ``get_device``, ``is_signed``, ``is_same_size``, ``is_set_to``, ``H``/``mH``/
``adjoint``, ``retains_grad``, ``output_nr``, ``as_subclass``..., asked of minitorch
and of torch with the same tensors and compared."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minitorch

VALUES = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def pair(values=VALUES):
    return torch.tensor(values), minitorch.tensor(values)


def test_device_and_layout_answers_match_torch() -> None:
    t, m = pair()
    for name in ("is_cpu", "is_meta", "is_cuda", "retains_grad", "output_nr", "name"):
        assert getattr(m, name) == getattr(t, name), name
    assert m.get_device() == minitorch.get_device(m) == t.get_device() == -1
    assert m.layout is minitorch.strided and repr(m.layout) == repr(t.layout) == "torch.strided"
    assert m.grad_dtype == m.dtype and m.const_data_ptr() == m.data_ptr()
    for name in ("is_conj", "is_distributed", "is_floating_point", "is_signed"):
        assert getattr(m, name)() == getattr(minitorch, name)(m) == getattr(torch, name)(t), name
    assert minitorch.numel(m) == torch.numel(t) == 24
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert m.volatile is False
        m.volatile = True  # removed in PyTorch 0.4: a warning, no effect
    assert len(caught) == 2 and m.volatile is False


@pytest.mark.parametrize("dtype", ["uint8", "bool", "int8", "int64", "float16", "float64"])
def test_is_signed_per_dtype(dtype) -> None:
    t = torch.zeros(2, dtype=getattr(torch, dtype))
    assert minitorch.zeros(2, dtype=getattr(minitorch, dtype)).is_signed() == t.is_signed()


def test_is_nonzero_and_is_same_size() -> None:
    for values in ([0.0], [[2.5]], [float("nan")], [0]):
        assert minitorch.is_nonzero(minitorch.tensor(values)) == torch.is_nonzero(torch.tensor(values))
    for values in ([], [1.0, 2.0]):
        with pytest.raises(RuntimeError):
            torch.is_nonzero(torch.tensor(values))
        with pytest.raises(RuntimeError):
            minitorch.is_nonzero(minitorch.tensor(values))
    t, m = pair()
    assert m.is_same_size(m.transpose(0, 1).transpose(0, 1)) and not m.is_same_size(m[0])
    with pytest.raises(TypeError):
        torch.is_same_size(t, [2, 3, 4])
    with pytest.raises(TypeError):
        minitorch.is_same_size(m, [2, 3, 4])
    with pytest.raises(TypeError):
        minitorch.numel([1, 2])


def test_is_set_to_compares_storage_and_layout() -> None:
    t, m = pair()
    for ours, theirs in ((m, t), (m.view(2, 3, 4), t.view(2, 3, 4)), (m[:, 1:], t[:, 1:]),
                         (m.clone(), t.clone()), (m.permute(0, 1, 2), t.permute(0, 1, 2))):  # fmt: skip
        assert m.is_set_to(ours) == t.is_set_to(theirs)


def test_conjugate_transposes_are_transposes() -> None:
    t, m = pair()
    t2, m2 = t[1].t(), m[1].t()  # non-contiguous
    assert np.array_equal(m2.H.numpy(), t2.H.numpy()) and m2.H.data_ptr() == m2.data_ptr()
    assert np.array_equal(m.mH.numpy(), t.mH.numpy())
    assert np.array_equal(m.adjoint().numpy(), t.adjoint().numpy())
    assert np.array_equal(minitorch.adjoint(m2).numpy(), torch.adjoint(t2).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert minitorch.tensor(3.0).H.item() == torch.tensor(3.0).H.item()
    for bad in (lambda x: x[0, 0].H, lambda x: x.H, lambda x: x[0, 0].mH, lambda x: x[0, 0].adjoint()):
        with pytest.raises(RuntimeError):
            bad(t)
        with pytest.raises(RuntimeError):
            bad(m)


def test_autograd_bookkeeping() -> None:
    m = minitorch.tensor(VALUES, requires_grad=True)
    t = torch.tensor(VALUES, requires_grad=True)
    assert (m * 2).output_nr == (t * 2).output_nr == 0  # (minitorch's unbind: one node per piece)
    y_m, y_t = m * 3, t * 3
    assert y_m.retains_grad == y_t.retains_grad is False
    y_m.retain_grad()
    y_t.retain_grad()
    assert y_m.retains_grad == y_t.retains_grad is True and m.retains_grad is False


def test_as_subclass_shares_data_and_graph() -> None:
    class Mine(minitorch.Tensor):
        pass

    class Theirs(torch.Tensor):
        pass

    m = minitorch.tensor(VALUES, requires_grad=True)
    t = torch.tensor(VALUES, requires_grad=True)
    s_m, s_t = m.as_subclass(Mine), t.as_subclass(Theirs)
    assert type(s_m) is Mine and s_m.data_ptr() == m.data_ptr()
    assert s_m.is_leaf == s_t.is_leaf and s_m.requires_grad
    (s_m * s_m).sum().backward()
    (s_t * s_t).sum().backward()
    assert np.allclose(m.grad.numpy(), t.grad.numpy())
    with pytest.raises(TypeError):
        m.as_subclass(int)
