"""Bilinear, CosineSimilarity, PairwiseDistance, pdist, ChannelShuffle, gumbel_softmax and
the in-place activations against PyTorch: values, gradients, same-seed parameters and
samples, broadcast and non-contiguous inputs, PyTorch's errors."""

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F


def _both(*shape, transpose=False):
    """A float64 torch leaf and its minitorch twin (optionally a transposed, non-contiguous view)."""
    a = torch.randn(*shape, dtype=torch.float64)
    leaf_t = a.clone().requires_grad_()
    leaf_m = minitorch.tensor(a.numpy(), requires_grad=True)
    if transpose:
        return leaf_t, leaf_m, leaf_t.transpose(0, 1), leaf_m.transpose(0, 1)
    return leaf_t, leaf_m, leaf_t, leaf_m


def _check(expected, got, leaves, atol=1e-10):
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=atol)
    w = torch.randn(expected.shape, dtype=torch.float64)
    (expected * w).sum().backward()
    (got * minitorch.tensor(w.numpy())).sum().backward()
    for t, m in leaves:
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=atol)


@pytest.mark.parametrize(
    "shape1,shape2,dim", [((3, 4, 5), (4, 1), 1), ((5, 3), (5, 3), -1), ((2, 3), (3,), 1)]
)
def test_cosine_similarity(shape1, shape2, dim):
    torch.manual_seed(0)
    a, am, x, xm = _both(*shape1)
    b, bm, y, ym = _both(*shape2)
    _check(
        torch.nn.functional.cosine_similarity(x, y, dim), F.cosine_similarity(xm, ym, dim), [(a, am), (b, bm)]
    )
    layer = minitorch.nn.CosineSimilarity(dim)
    np.testing.assert_allclose(
        layer(xm, ym).detach().numpy(), torch.nn.CosineSimilarity(dim)(x, y).detach().numpy()
    )


def test_cosine_similarity_of_a_zero_vector_is_zero():
    zero, other = minitorch.zeros(1, 3), minitorch.ones(1, 3)
    assert F.cosine_similarity(zero, other).item() == 0.0


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.5, float("inf")])
def test_pairwise_distance_and_pdist(p):
    torch.manual_seed(1)
    a, am, x, xm = _both(5, 3, transpose=True)  # [3, 5], non-contiguous
    b, bm, y, ym = _both(5)
    _check(torch.nn.functional.pairwise_distance(x, y, p), F.pairwise_distance(xm, ym, p), [(a, am), (b, bm)])
    c, cm, z, zm = _both(4, 6, transpose=True)  # [6, 4]
    _check(torch.nn.functional.pdist(z, p), F.pdist(zm, p), [(c, cm)])
    assert minitorch.nn.PairwiseDistance(p, keepdim=True)(xm, ym).shape == (3, 1)


def test_pdist_edge_cases_and_errors():
    assert F.pdist(minitorch.randn(1, 3)).shape == (0,)
    assert F.pairwise_distance(minitorch.randn(4), minitorch.randn(4)).shape == ()
    with pytest.raises(RuntimeError):
        F.pdist(minitorch.randn(2, 3, 4))
    with pytest.raises(RuntimeError):
        F.pdist(minitorch.randn(2, 3), -1.0)


def test_bilinear_layer_has_torchs_parameters_values_and_gradients():
    for seed in (0, 3, 11):
        torch.manual_seed(seed)
        theirs = torch.nn.Bilinear(3, 4, 5)
        minitorch.manual_seed(seed)
        ours = minitorch.nn.Bilinear(3, 4, 5)
        assert repr(ours) == repr(theirs)
        np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
        np.testing.assert_array_equal(ours.bias.detach().numpy(), theirs.bias.detach().numpy())
    theirs, ours = theirs.double(), ours.double()
    a, am, x, xm = _both(2, 6, 3)
    b, bm, y, ym = _both(2, 6, 4)
    _check(theirs(x, y), ours(xm, ym), [(a, am), (b, bm), (theirs.weight, ours.weight)], atol=1e-9)
    assert minitorch.nn.Bilinear(2, 2, 3, bias=False).bias is None
    with pytest.raises(RuntimeError):
        F.bilinear(minitorch.randn(2, 3), minitorch.randn(3, 4), minitorch.randn(5, 3, 4))


@pytest.mark.parametrize("shape,groups", [((2, 6, 3, 2), 3), ((1, 4, 5), 2), ((3, 6, 2, 2, 2), 6)])
def test_channel_shuffle(shape, groups):
    a, am, x, xm = _both(*shape)
    _check(torch.nn.functional.channel_shuffle(x, groups), F.channel_shuffle(xm, groups), [(a, am)])
    assert repr(minitorch.nn.ChannelShuffle(groups)) == repr(torch.nn.ChannelShuffle(groups))


@pytest.mark.parametrize("shape,groups", [((2, 3), 1), ((2, 5, 3), 2), ((2, 4, 3), 0)])
def test_channel_shuffle_errors(shape, groups):
    with pytest.raises(RuntimeError):
        torch.nn.functional.channel_shuffle(torch.zeros(shape), groups)
    with pytest.raises(RuntimeError):
        F.channel_shuffle(minitorch.zeros(shape), groups)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gumbel_softmax_draws_torchs_noise(hard, dtype):
    for seed in (0, 5, 2147483647):
        x = torch.randn(4, 7, dtype=dtype, requires_grad=True)
        xm = minitorch.tensor(x.detach().numpy(), requires_grad=True)
        torch.manual_seed(seed)
        expected = torch.nn.functional.gumbel_softmax(x, 0.5, hard, dim=-1)
        minitorch.manual_seed(seed)
        got = F.gumbel_softmax(xm, 0.5, hard, dim=-1)
        if hard:  # the same argmax from the same noise: one-hot rows equal bit for bit
            np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-6)
        w = torch.randn(4, 7, dtype=dtype)
        (expected * w).sum().backward()
        (got * minitorch.tensor(w.numpy())).sum().backward()
        np.testing.assert_allclose(xm.grad.numpy(), x.grad.numpy(), atol=1e-5)


@pytest.mark.parametrize("name,args", [
    ("relu_", ()), ("elu_", (0.5,)), ("celu_", (0.7,)), ("selu_", ()), ("leaky_relu_", (0.2,)),
    ("hardtanh_", (-0.5, 0.3)), ("threshold_", (0.1, -2.0)), ("rrelu_", ()),
])  # fmt: skip
def test_inplace_activations(name, args):
    x = torch.randn(3, 4)
    expected, got = x.clone(), minitorch.tensor(x.numpy())
    getattr(torch.nn.functional, name)(expected, *args)
    assert getattr(F, name)(got, *args) is got
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError):  # in place on a leaf that requires grad, as PyTorch refuses
        getattr(F, name)(minitorch.randn(3, requires_grad=True), *args)
