"""``linalg.ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve`` against PyTorch (LAPACK's
``sytrf`` and ``sytrs``): the packed ``LD``, the pivots exactly, ``info``, batches,
non-contiguous and tied inputs, singular matrices, the missing derivative and PyTorch's
errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

RNG = np.random.default_rng(11)
TOLERANCE = {"float64": {"rtol": 1e-10, "atol": 1e-12}, "float32": {"rtol": 1e-4, "atol": 1e-5}}


def same(ours, theirs, **tolerance) -> None:
    actual = torch.from_numpy(np.array(ours.detach().numpy()))
    torch.testing.assert_close(actual, theirs.detach(), **tolerance)


def symmetric(shape, kind: str, dtype: str = "float64", rng: np.random.Generator = RNG) -> np.ndarray:
    """A batch of symmetric matrices: ``random`` (indefinite), ``tied`` (small integers,
    so many entries of equal magnitude), ``small_diagonal`` (2x2 pivots), ``general``
    (not symmetric: only its lower triangle counts)."""
    if kind == "tied":
        a = rng.integers(-2, 3, shape).astype(dtype)
    else:
        a = rng.standard_normal(shape).astype(dtype)
    if kind == "general":
        return a
    a = a + np.swapaxes(a, -1, -2)
    if kind == "small_diagonal":
        a[..., np.arange(shape[-1]), np.arange(shape[-1])] *= 1e-3
    return a


def compare_factor(a: np.ndarray, dtype: str = "float64") -> None:
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    ours = minitorch.linalg.ldl_factor_ex(minitorch.tensor(a))
    assert ours.pivots.dtype is minitorch.int32 and ours.info.dtype is minitorch.int32
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.info.tolist() == theirs.info.tolist()
    same(ours.LD, theirs.LD, **TOLERANCE[dtype])


@pytest.mark.parametrize("kind", ["random", "tied", "small_diagonal", "general"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_factor_is_lapacks(kind, dtype):
    for n in range(11):
        for _ in range(4):
            compare_factor(symmetric((n, n), kind, dtype), dtype)


@pytest.mark.parametrize("n", [40, 70, 130])
def test_larger_matrices_pick_the_same_pivots(n):
    """Past LAPACK's block size (64) ``sytrf`` works in panels; the pivots agree."""
    for kind in ("random", "tied", "small_diagonal"):
        compare_factor(symmetric((n, n), kind))


def test_two_by_two_block_and_its_storage():
    """``[[0, 1], [1, 0]]`` has no 1x1 pivot: one 2x2 block, pivots ``-2, -2`` (as LAPACK:
    the second row swapped with itself), and ``LD``'s upper triangle is zero."""
    a = np.array([[0.0, 5.0, 1.0], [5.0, 0.0, 2.0], [1.0, 2.0, 3.0]])
    ld, pivots = minitorch.linalg.ldl_factor(minitorch.tensor(a))
    theirs = torch.linalg.ldl_factor(torch.tensor(a))
    assert pivots.tolist() == theirs.pivots.tolist() == [-2, -2, 3]
    same(ld, theirs.LD)
    assert ld[0, 1].item() == 0


def test_only_the_lower_triangle_is_read():
    a = symmetric((5, 5), "random")
    spoiled = np.tril(a) + np.triu(np.full((5, 5), 100.0), 1)
    ours = minitorch.linalg.ldl_factor(minitorch.tensor(spoiled))
    expected = torch.linalg.ldl_factor(torch.tensor(a))
    same(ours.LD, expected.LD)
    assert ours.pivots.tolist() == expected.pivots.tolist()


def test_batches_and_non_contiguous_inputs():
    a = symmetric((3, 2, 6, 6), "random")
    compare_factor(a)
    for view in (lambda t: t.mT, lambda t: t[..., ::2, ::2], lambda t: t[1:, 0]):
        ours = minitorch.linalg.ldl_factor(view(minitorch.tensor(a)))
        theirs = torch.linalg.ldl_factor(view(torch.tensor(a)))
        same(ours.LD, theirs.LD)
        assert ours.pivots.tolist() == theirs.pivots.tolist()
    one = symmetric((4, 4), "random")
    expanded = minitorch.linalg.ldl_factor(minitorch.tensor(one).expand(3, 4, 4))
    same(expanded.LD, torch.linalg.ldl_factor(torch.tensor(one).expand(3, 4, 4)).LD)


@pytest.mark.parametrize("shape", [(0, 0), (0, 3, 3), (2, 0, 0)])
def test_empty(shape):
    ours = minitorch.linalg.ldl_factor_ex(minitorch.zeros(shape, dtype=minitorch.float64))
    theirs = torch.linalg.ldl_factor_ex(torch.zeros(shape, dtype=torch.float64))
    assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
    b = minitorch.zeros(shape[:-1] + (2,), dtype=minitorch.float64)
    assert minitorch.linalg.ldl_solve(ours.LD, ours.pivots, b).shape == b.shape


@pytest.mark.parametrize("a", [
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    [[1.0, 2.0], [2.0, 4.0]],
    [[1.0, 0.0, 0.0], [0.0, float("nan"), 0.0], [0.0, 0.0, 1.0]],
    [[2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 3.0]],
])  # fmt: skip
def test_singular_matrices_report_info(a):
    a = np.array(a)
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    ours = minitorch.linalg.ldl_factor_ex(minitorch.tensor(a))
    assert ours.info.item() == theirs.info.item() > 0
    assert ours.pivots.tolist() == theirs.pivots.tolist()
    same(ours.LD, theirs.LD, equal_nan=True)
    with pytest.raises(RuntimeError, match="ldl_factor: Unknown error code"):
        minitorch.linalg.ldl_factor(minitorch.tensor(a))
    with pytest.raises(RuntimeError, match="ldl_factor_ex: Unknown error code"):
        minitorch.linalg.ldl_factor_ex(minitorch.tensor(a), check_errors=True)


def test_batched_info():
    a = np.zeros((3, 2, 2))
    a[0] = np.eye(2)
    a[2] = [[1.0, 0.0], [0.0, 0.0]]
    ours = minitorch.linalg.ldl_factor_ex(minitorch.tensor(a))
    assert ours.info.tolist() == torch.linalg.ldl_factor_ex(torch.tensor(a)).info.tolist() == [0, 1, 2]


def invertible(draw) -> np.ndarray:
    """The first draw whose every matrix is well conditioned: a solve is only compared on
    systems that have one answer (a singular draw makes PyTorch's own ``ldl_factor`` raise,
    and a near-singular one amplifies float32 rounding past any fixed tolerance)."""
    while True:
        a = draw()
        if np.all(np.linalg.cond(a.astype(np.float64)) < 1e3):
            return a


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shapes", [((5, 5), (5, 3)), ((2, 4, 4), (2, 4, 1)), ((2, 4, 4), (4, 2)),
                                    ((3, 1, 6, 6), (2, 6, 2)), ((1, 3, 3), (3, 3))])  # fmt: skip
def test_solve_is_lapacks(dtype, shapes):
    a_shape, b_shape = shapes
    rng = np.random.default_rng(sum(a_shape) * 31 + sum(b_shape))  # each case its own data
    for kind in ("random", "tied", "small_diagonal"):
        a = invertible(lambda kind=kind: symmetric(a_shape, kind, dtype, rng))
        b = rng.standard_normal(b_shape).astype(dtype)
        ld, pivots = torch.linalg.ldl_factor(torch.tensor(a))
        batch = torch.broadcast_shapes(a_shape[:-2], b_shape[:-2])  # (PyTorch crashes when LD's batch
        n, k = b_shape[-2:]  # is the smaller one: it is given the broadcast factors)
        expected = torch.linalg.ldl_solve(ld.expand(batch + (n, n)).contiguous(),
                                          pivots.expand(batch + (n,)).contiguous(),
                                          torch.tensor(b).expand(batch + (n, k)))  # fmt: skip
        got = minitorch.linalg.ldl_solve(minitorch.tensor(ld.numpy()), minitorch.tensor(pivots.numpy()),
                                         minitorch.tensor(b))  # fmt: skip
        scale = max(1.0, expected.abs().max().item())
        same(got, expected, rtol=TOLERANCE[dtype]["rtol"], atol=TOLERANCE[dtype]["atol"] * scale)


def test_solve_solves_and_takes_any_integer_pivots():
    a = symmetric((6, 6), "small_diagonal")
    b = RNG.standard_normal((6, 2))
    ld, pivots = minitorch.linalg.ldl_factor(minitorch.tensor(a))
    for p in (pivots, pivots.to(minitorch.int64), pivots.to(minitorch.int16)):
        x = minitorch.linalg.ldl_solve(ld, p, minitorch.tensor(b), hermitian=True)
        np.testing.assert_allclose(a @ x.numpy(), b, atol=1e-10)
    x = minitorch.linalg.ldl_solve(ld, pivots, minitorch.tensor(b.T.copy()).mT)  # a transposed B
    np.testing.assert_allclose(a @ x.numpy(), b, atol=1e-10)


def test_hermitian_is_symmetric_for_real_matrices():
    a = minitorch.tensor(symmetric((5, 5), "random"))
    plain, hermitian = minitorch.linalg.ldl_factor(a), minitorch.linalg.ldl_factor(a, hermitian=True)
    assert plain.pivots.tolist() == hermitian.pivots.tolist()
    assert (plain.LD == hermitian.LD).all().item()


def test_no_derivative_as_pytorch():
    a = minitorch.tensor(symmetric((4, 4), "random"), requires_grad=True)
    ld, pivots, info = minitorch.linalg.ldl_factor_ex(a)
    assert ld.requires_grad and not pivots.requires_grad and not info.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not implemented"):
        ld.sum().backward()
    b = minitorch.randn(4, 2, dtype=minitorch.float64, requires_grad=True)
    x = minitorch.linalg.ldl_solve(ld.detach(), pivots, b)
    assert x.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not implemented"):
        x.sum().backward()


def test_out_and_return_types():
    a = minitorch.tensor(symmetric((4, 4), "random"))
    out = (minitorch.empty(0, dtype=minitorch.float64), minitorch.empty(0, dtype=minitorch.int32))
    result = minitorch.linalg.ldl_factor(a, out=out)
    assert result.LD is out[0] and result.pivots is out[1]
    assert repr(result).startswith("torch.return_types.linalg_ldl_factor(\nLD=")
    assert type(minitorch.linalg.ldl_factor_ex(a)).__name__ == "linalg_ldl_factor_ex"
    b = minitorch.ones(4, 1, dtype=minitorch.float64)
    x = minitorch.empty(0, dtype=minitorch.float64)
    assert minitorch.linalg.ldl_solve(*result, b, out=x) is x
    assert not hasattr(minitorch, "ldl_factor") and not hasattr(minitorch.ones(1), "ldl_factor")


def errors(lib, make):
    """The error type and message of ``make(lib)``."""
    try:
        make(lib)
    except Exception as error:  # noqa: BLE001 - the type is compared
        return type(error).__name__, str(error)
    return "returns", ""


LD = np.tril(np.ones((4, 4))) + 3 * np.eye(4)
BAD_CALLS = [
    lambda t: t.linalg.ldl_factor(t.ones(3, 4, dtype=t.float64)),
    lambda t: t.linalg.ldl_factor(t.ones(3, dtype=t.float64)),
    lambda t: t.linalg.ldl_factor(t.ones(3, 3, dtype=t.int64)),
    lambda t: t.linalg.ldl_factor_ex(t.ones(3, 3, dtype=t.float16)),
    lambda t: t.linalg.ldl_factor(t.ones(3, 3, dtype=t.bfloat16)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.ones(4, dtype=t.int32), t.ones(4)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.ones(4, dtype=t.int32), t.ones(4, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.ones(4, dtype=t.int32), t.ones(3, 2, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.ones(3, dtype=t.int32), t.ones(4, 2, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.ones(4), t.ones(4, 2, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.ones(4, dtype=t.bool), t.ones(4, 2, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.zeros(4, dtype=t.int32), t.ones(4, 2, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), 9 * t.ones(4, dtype=t.int32), t.ones(4, 2, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD)[:3], t.ones(4, dtype=t.int32), t.ones(4, 2, dtype=t.float64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD).long(), t.ones(4, dtype=t.int32), t.ones(4, 2, dtype=t.int64)),
    lambda t: t.linalg.ldl_solve(t.tensor(LD), t.ones(4, dtype=t.int32), [[1.0]]),
    lambda t: t.linalg.ldl_factor([[1.0]]),
]


@pytest.mark.parametrize("index", range(len(BAD_CALLS)))
def test_errors_as_pytorch(index):
    ours, theirs = errors(minitorch, BAD_CALLS[index]), errors(torch, BAD_CALLS[index])
    assert ours[0] == theirs[0]
    if theirs[0] != "TypeError":  # PyTorch's message, and maybe minitorch's hint how to convert
        assert ours[1].startswith(theirs[1])
