"""nn.init's orthogonal_, trunc_normal_, dirac_, sparse_ and the deprecated aliases against
PyTorch: after the same seed the same values (bit for bit; orthogonal_ to rounding, its QR
is Gram-Schmidt here and LAPACK's Householder there), many seeds and shapes."""

import warnings

import numpy as np
import pytest
import torch

import minitorch

init = minitorch.nn.init


def _dtype(dtype):
    return minitorch.float32 if dtype == torch.float32 else minitorch.float64


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (6, 2, 3), (2, 1), (20, 8)])
def test_orthogonal_matches_torch(shape):
    for seed in (0, 1, 42, 2147483647):
        torch.manual_seed(seed)
        expected = torch.nn.init.orthogonal_(torch.empty(shape), 1.5)
        minitorch.manual_seed(seed)
        got = init.orthogonal_(minitorch.empty(*shape), 1.5)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=2e-6)
    flat = got.numpy().reshape(shape[0], -1) / 1.5
    small = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(small, np.eye(small.shape[0]), atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("args", [(0.5, 2.0, -1.0, 1.5), (0.0, 1.0, -2.0, 2.0), (0.0, 1.0, 1.0, 1.2)])
def test_trunc_normal_matches_torch_bit_for_bit(args, dtype):
    # (0, 1, 1, 1.2) holds under 30% of the mass: PyTorch's uniform-candidate rejection branch
    for seed in (0, 3, 9):
        for shape in ((5,), (40, 7)):
            torch.manual_seed(seed)
            expected = torch.nn.init.trunc_normal_(torch.empty(shape, dtype=dtype), *args)
            minitorch.manual_seed(seed)
            got = init.trunc_normal_(minitorch.empty(*shape, dtype=_dtype(dtype)), *args)
            np.testing.assert_array_equal(got.numpy(), expected.numpy())
            assert args[2] <= got.numpy().min() and got.numpy().max() <= args[3]


def test_trunc_normal_with_a_generator():
    g, h = torch.Generator().manual_seed(7), minitorch.Generator().manual_seed(7)
    expected = torch.nn.init.trunc_normal_(torch.empty(30), generator=g)
    got = init.trunc_normal_(minitorch.empty(30), generator=h)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize(
    "shape,groups", [((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((4, 4, 3, 3, 3), 2), ((2, 5, 4), 1)]
)
def test_dirac_matches_torch(shape, groups):
    expected = torch.nn.init.dirac_(torch.empty(shape), groups)
    np.testing.assert_array_equal(init.dirac_(minitorch.empty(*shape), groups).numpy(), expected.numpy())


def test_dirac_and_orthogonal_errors():
    with pytest.raises(ValueError):
        init.dirac_(minitorch.empty(3, 3))
    with pytest.raises(ValueError):
        init.dirac_(minitorch.empty(3, 2, 3), groups=2)
    with pytest.raises(ValueError):
        init.orthogonal_(minitorch.empty(3))
    with pytest.raises(ValueError):
        init.sparse_(minitorch.empty(3, 2, 2), 0.5)


def test_sparse_matches_torch():
    for seed in (0, 5):
        torch.manual_seed(seed)
        expected = torch.nn.init.sparse_(torch.empty(10, 4), 0.3)
        minitorch.manual_seed(seed)
        got = init.sparse_(minitorch.empty(10, 4), 0.3)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
        assert ((got.numpy() == 0).sum(0) >= 3).all()


@pytest.mark.parametrize("name,args", [
    ("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("xavier_uniform", ()), ("xavier_normal", ()),
    ("kaiming_uniform", ()), ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,)), ("eye", ()),
])  # fmt: skip
def test_deprecated_aliases_warn_and_fill_as_torch(name, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.manual_seed(2)
        expected = getattr(torch.nn.init, name)(torch.empty(4, 6), *args)
        minitorch.manual_seed(2)
        got = getattr(init, name)(minitorch.empty(4, 6), *args)
    deprecations = [
        w for w in caught if issubclass(w.category, FutureWarning) and f"nn.init.{name}_" in str(w.message)
    ]
    assert len(deprecations) == 2  # torch's and ours
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=2e-6)


def test_dirac_alias():
    with pytest.warns(FutureWarning, match="nn.init.dirac_"):
        init.dirac(minitorch.empty(2, 2, 3))
