"""``svd_lowrank`` and ``pca_lowrank`` against PyTorch after the same seed: the same
random projection, so the same singular values, the same singular vectors up to each
one's sign (an SVD's choice), and the same gradients of sign-free quantities."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

RNG = np.random.default_rng(3)


def up_to_signs(ours: np.ndarray, theirs: np.ndarray) -> None:
    signs = np.sign((ours * theirs).sum(-2, keepdims=True))  # +-1 per column
    np.testing.assert_allclose(ours * signs, theirs, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape,q", [((9, 5), 3), ((4, 10), 2), ((2, 8, 6), 4)])
@pytest.mark.parametrize("center", [False, True])
def test_lowrank_factors_match_torch_after_the_same_seed(shape, q, center):
    x = RNG.standard_normal(shape)
    minitorch.manual_seed(5)
    torch.manual_seed(5)
    if center:
        ours = minitorch.pca_lowrank(minitorch.tensor(x), q=q)
        theirs = torch.pca_lowrank(torch.tensor(x), q=q)
    else:
        ours = minitorch.svd_lowrank(minitorch.tensor(x), q=q)
        theirs = torch.svd_lowrank(torch.tensor(x), q=q)
    np.testing.assert_allclose(ours[1].numpy(), theirs[1].numpy(), rtol=1e-10)
    up_to_signs(ours[0].numpy(), theirs[0].numpy())
    up_to_signs(ours[2].numpy(), theirs[2].numpy())


def test_singular_values_gradient_and_subtracted_m():
    x, mean = RNG.standard_normal((8, 6)), RNG.standard_normal((1, 6))
    a, ta = minitorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    minitorch.manual_seed(1)
    torch.manual_seed(1)
    s = minitorch.svd_lowrank(a, q=6, M=minitorch.tensor(mean))[1]
    ts = torch.svd_lowrank(ta, q=6, M=torch.tensor(mean))[1]
    np.testing.assert_allclose(s.detach().numpy(), ts.detach().numpy(), rtol=1e-10)
    s.sum().backward()
    ts.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_errors_as_pytorch():
    with pytest.raises(ValueError, match="not greater than min"):
        minitorch.pca_lowrank(minitorch.randn(4, 3), q=5)
    with pytest.raises(ValueError, match="niter"):
        minitorch.pca_lowrank(minitorch.randn(4, 3), niter=-1)
    with pytest.raises(TypeError):
        minitorch.svd_lowrank([[1.0]])
