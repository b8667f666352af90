"""``minitorch.functional`` (PyTorch's ``torch.functional``) against torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch
from minitorch.testing import assert_close


def _pair(shape, seed=0, transposed=False):
    array = np.random.default_rng(seed).standard_normal(shape)
    ours, theirs = minitorch.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    if transposed:
        return ours.mT, theirs.mT, ours, theirs
    return ours, theirs, ours, theirs


def _same_with_grad(fn_ours, fn_theirs, *pairs):
    got, expected = fn_ours(*[p[0] for p in pairs]), fn_theirs(*[p[1] for p in pairs])
    assert_close(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    got.sum().backward() if got.numel() else None
    expected.sum().backward() if expected.numel() else None
    for ours_leaf, theirs_leaf in ((p[2], p[3]) for p in pairs):
        if theirs_leaf.grad is not None:
            assert_close(ours_leaf.grad.numpy(), theirs_leaf.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dims", [0, 1, 2, ([1, 0], [0, 1]), ([2], [0])])
def test_tensordot(dims) -> None:
    a, b = (
        _pair((3, 4, 5), 1),
        _pair(
            (4, 3, 5)
            if dims == ([1, 0], [0, 1])
            else (5, 2)
            if dims == ([2], [0])
            else (4, 5, 2)
            if dims == 2
            else (5, 2)
            if dims == 1
            else (2,),
            2,
        ),
    )
    _same_with_grad(
        lambda x, y: minitorch.tensordot(x, y, dims), lambda x, y: torch.tensordot(x, y, dims), a, b
    )


def test_tensordot_on_a_transposed_operand_and_a_size_mismatch() -> None:
    a, b = _pair((4, 3), 3, transposed=True), _pair((4, 2), 4)
    _same_with_grad(lambda x, y: minitorch.tensordot(x, y, 1), lambda x, y: torch.tensordot(x, y, 1), a, b)
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        minitorch.tensordot(minitorch.ones(2, 3), minitorch.ones(4, 2), 1)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_cdist(p) -> None:
    x1, x2 = _pair((2, 5, 3), 5), _pair((2, 4, 3), 6, transposed=False)
    _same_with_grad(lambda a, b: minitorch.cdist(a, b, p=p), lambda a, b: torch.cdist(a, b, p=p), x1, x2)


def test_shape_helpers() -> None:
    scalar, vector, matrix = minitorch.tensor(1.0), minitorch.arange(3.0), minitorch.ones(2, 3)
    t_scalar, t_vector, t_matrix = torch.tensor(1.0), torch.arange(3.0), torch.ones(2, 3)
    for ours, theirs in (
        (minitorch.atleast_1d(scalar), torch.atleast_1d(t_scalar)),
        (minitorch.atleast_2d(vector), torch.atleast_2d(t_vector)),
        (minitorch.atleast_3d(vector), torch.atleast_3d(t_vector)),
        (minitorch.atleast_3d(matrix), torch.atleast_3d(t_matrix)),
        (minitorch.atleast_3d(scalar), torch.atleast_3d(t_scalar)),
    ):
        assert tuple(ours.shape) == tuple(theirs.shape)
    assert [tuple(t.shape) for t in minitorch.atleast_2d(scalar, vector)] == [(1, 1), (1, 3)]
    assert minitorch.broadcast_shapes((3, 1), (1, 4), 4) == torch.broadcast_shapes((3, 1), (1, 4), 4)
    a, b = minitorch.broadcast_tensors(minitorch.ones(3, 1), minitorch.arange(4.0))
    assert tuple(a.shape) == tuple(b.shape) == (3, 4) and b.stride() == (0, 1)
    with pytest.raises(RuntimeError):
        minitorch.broadcast_shapes((2,), (3,))


def test_cartesian_prod_block_diag_chain_matmul() -> None:
    got = minitorch.cartesian_prod(minitorch.tensor([1, 2]), minitorch.tensor([3, 4, 5]))
    assert got.tolist() == torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4, 5])).tolist()
    blocks = [np.arange(4.0).reshape(2, 2), np.array([7.0]), np.ones((1, 3))]
    got = minitorch.block_diag(*[minitorch.tensor(b) for b in blocks])
    assert got.tolist() == torch.block_diag(*[torch.tensor(b) for b in blocks]).tolist()
    ms = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate([(2, 3), (3, 4), (4, 1)])]
    assert_close(minitorch.chain_matmul(*[minitorch.tensor(m) for m in ms]).numpy(),
                 (torch.tensor(ms[0]) @ torch.tensor(ms[1]) @ torch.tensor(ms[2])).numpy())  # fmt: skip


def test_module_is_torch_functional() -> None:
    import minitorch as torch_like

    for name in ("einsum", "meshgrid", "norm", "split", "unique", "tensordot", "broadcast_tensors"):
        assert hasattr(torch.functional, name) and callable(getattr(torch_like.functional, name))
    x = torch_like.arange(6.0).reshape(2, 3)
    assert torch_like.functional.einsum("ij->j", x).tolist() == [3.0, 5.0, 7.0]
    assert torch_like.functional.unique(torch_like.tensor([2, 1, 2])).tolist() == [1, 2]
    assert torch_like.nn.functional.relu(-x).sum().item() == 0.0
