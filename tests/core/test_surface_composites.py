"""The composite ops of issue 31's namespaces (products, stacking, index updates,
statistics) against PyTorch: the same call on both libraries, values, dtypes, shapes and
the gradients of every floating input, on non-contiguous and broadcast inputs and edge
cases; and PyTorch's exception types for bad arguments."""

# ruff: noqa: B023 (each lambda is called at once by check, inside its loop turn)
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import minitorch as mt

RNG = np.random.default_rng(31)


def arr(*shape: int, dtype: str = "float64", low: int = -3, high: int = 4) -> np.ndarray:
    """Random data; floats on a 0.5 grid (ties occur) unless ``dtype`` says "smooth"."""
    if dtype == "smooth":
        return np.asarray(RNG.standard_normal(shape))
    if dtype.startswith("float"):
        return np.asarray(RNG.integers(2 * low, 2 * high, shape) / 2).astype(dtype)
    if dtype == "bool":
        return np.asarray(RNG.integers(0, 2, shape)).astype(bool)
    return np.asarray(RNG.integers(low, high, shape)).astype(dtype)


def leaf(lib: Any, a: Any, transposed: bool = False) -> Any:
    """``a`` as a tensor of ``lib``; floats require grad; ``transposed`` lays it out
    column-major (the logical value is the same)."""
    if not isinstance(a, np.ndarray):
        return a
    data = np.ascontiguousarray(a.T) if transposed else a
    t = lib.tensor(data)
    if t.dtype.is_floating_point:
        t.requires_grad_(True)
    return t


def check(fn: Any, *arrays: Any, transposed: bool = False, grad: bool = True, atol: float = 1e-6) -> None:
    """``fn(lib, *tensors)`` on minitorch and torch: outputs equal (each output of a
    tuple), and so the gradients of a weighted sum of the floating outputs."""
    results, grads = [], []
    for lib in (mt, torch):
        leaves = [leaf(lib, a, transposed and isinstance(a, np.ndarray) and a.ndim == 2) for a in arrays]
        inputs = [t.T if transposed and hasattr(t, "ndim") and t.ndim == 2 else t for t in leaves]
        out = fn(lib, *inputs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        results.append(outs)
        floats = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
        wanted = [t for t in leaves if hasattr(t, "requires_grad") and t.requires_grad]
        if grad and floats and wanted:
            total = sum(
                (o * lib.arange(o.numel(), dtype=o.dtype).reshape(o.shape).cos()).sum() for o in floats
            )
            grads.append(lib.autograd.grad(total, wanted, allow_unused=True))
    for got, want in zip(*results):
        assert str(got.dtype) == str(want.dtype), (got.dtype, want.dtype)
        assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=atol, rtol=1e-6)
    if grads:
        for got, want in zip(*grads):
            if want is None:
                assert got is None or not got.numpy().any()
                continue
            np.testing.assert_allclose(got.numpy(), want.numpy(), atol=atol, rtol=1e-6)


def raises_like_torch(fn: Any, *arrays: Any) -> None:
    """``fn`` raises the same exception type on both libraries."""
    kinds = []
    for lib in (mt, torch):
        inputs = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        with pytest.raises(Exception) as caught:
            fn(lib, *inputs)
        kinds.append(caught.type)
    assert kinds[0] is kinds[1], kinds


# products ------------------------------------------------------------------------------


@pytest.mark.parametrize("transposed", [False, True])
def test_add_products(transposed: bool) -> None:
    m, n, p = arr(3, 4), arr(4, 5), arr(5)
    check(lambda lib, b, a, c: lib.addmm(b, a, c, beta=0.5, alpha=2), arr(3, 5), m, n, transposed=transposed)
    check(lambda lib, b, a, c: lib.addmm(b, a, c), arr(5), m, n, transposed=transposed)
    check(lambda lib, b, a, c: b.addmv(a, c, alpha=-1), arr(4), n, p, transposed=transposed)
    check(lambda lib, b, a, c: lib.addr(b, a, c, beta=2), arr(4, 1), arr(4), p)
    check(lambda lib, b, a, c: lib.baddbmm(b, a, c, beta=0.5), arr(1, 3, 5), arr(2, 3, 4), arr(2, 4, 5))
    check(lambda lib, b, a, c: lib.addbmm(b, a, c, alpha=3), arr(3, 5), arr(2, 3, 4), arr(2, 4, 5))


def test_beta_zero_ignores_nan_input() -> None:
    nan = np.full((3, 5), np.nan)
    check(lambda lib, b, a, c: lib.addmm(b, a, c, beta=0), nan, arr(3, 4), arr(4, 5), grad=False)


def test_add_products_inplace_and_ints() -> None:
    check(lambda lib, b, a, c: b.clone().addmm_(a, c), arr(3, 5), arr(3, 4), arr(4, 5))
    check(
        lambda lib, b, a, c: lib.addmm(b, a, c, alpha=2),
        *(arr(*s, dtype="int64") for s in ((3, 5), (3, 4), (4, 5))),
    )


@pytest.mark.parametrize("transposed", [False, True])
def test_inner_kron_vdot_trace_dist(transposed: bool) -> None:
    check(lambda lib, a, b: lib.inner(a, b), arr(3, 4), arr(2, 4), transposed=transposed)
    check(lambda lib, a, b: lib.inner(a, b), arr(2, 3, 4), arr(4))
    check(lambda lib, a, b: lib.inner(a, b), np.array(2.0), arr(2, 4))
    check(lambda lib, a, b: lib.kron(a, b), arr(2, 3), arr(3, 2), transposed=transposed)
    check(lambda lib, a, b: a.kron(b), arr(2, 1, 3), arr(4, 2))
    check(lambda lib, a, b: lib.vdot(a, b), arr(4), arr(4))
    check(lambda lib, a: lib.trace(a), arr(3, 4), transposed=transposed)
    check(lambda lib, a: a.trace(), arr(3, 3, dtype="int32"))
    for p in (2, 1, 0, 3, float("inf")):
        check(
            lambda lib, a, b: lib.dist(a, b, p),
            arr(3, 4, dtype="smooth"),
            arr(4, dtype="smooth"),
            grad=p != 0,
        )


@pytest.mark.parametrize("n", [0, 1, 2, 5, -1, -2])
def test_matrix_power(n: int) -> None:
    a = arr(2, 3, 3, dtype="smooth") + 3 * np.eye(3)
    check(lambda lib, x: lib.matrix_power(x, n), a, atol=1e-5)
    check(lambda lib, x: x.matrix_power(n), a[0], transposed=True, atol=1e-5)


def test_product_errors() -> None:
    raises_like_torch(lambda lib, a: lib.matrix_power(a, 2), arr(3, 4))
    raises_like_torch(lambda lib, a: lib.trace(a), arr(3))
    raises_like_torch(lambda lib, a, b: lib.inner(a, b), arr(3, 4), arr(3))
    raises_like_torch(lambda lib, a, b, c: lib.addmm(a, b, c), arr(3, 5), arr(3), arr(4, 5))


# stacking and splitting -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
def test_stacks(name: str) -> None:
    for shapes in [((3,), (3,)), ((2, 3), (2, 3)), ((), ()), ((2, 3, 4), (2, 3, 4))]:
        check(lambda lib, *ts: getattr(lib, name)(ts), *(arr(*s) for s in shapes))
    check(lambda lib, a, b: getattr(lib, name)([a, b]), arr(3, 2), arr(3, 2), transposed=True)


@pytest.mark.parametrize("cut", [3, 4, 1, [1, 3], [-2, 9], [3, 1], ()])
def test_tensor_split(cut: Any) -> None:
    check(lambda lib, a: lib.tensor_split(a, cut, 1), arr(2, 5, 3))
    check(lambda lib, a: a.tensor_split(cut), arr(5, 2), transposed=True)
    if isinstance(cut, int):
        check(lambda lib, a: lib.tensor_split(a, lib.tensor(cut)), arr(5))
    elif cut:
        check(lambda lib, a: lib.tensor_split(a, lib.tensor(cut), -1), arr(3, 5))


def test_hsplit_vsplit_dsplit_split_with_sizes() -> None:
    check(lambda lib, a: lib.hsplit(a, 2), arr(3, 4))
    check(lambda lib, a: lib.hsplit(a, [1, 3]), arr(6))
    check(lambda lib, a: lib.vsplit(a, [1]), arr(3, 4), transposed=True)
    check(lambda lib, a: a.dsplit(2), arr(2, 3, 4))
    check(lambda lib, a: a.split_with_sizes([1, 0, 3], 1), arr(2, 4))
    raises_like_torch(lambda lib, a: lib.hsplit(a, 3), arr(3, 4))
    raises_like_torch(lambda lib, a: lib.dsplit(a, 2), arr(3, 4))
    raises_like_torch(lambda lib, a: lib.split_with_sizes(a, [1, 1]), arr(3, 4))
    raises_like_torch(lambda lib, a: lib.tensor_split(a, 0), arr(3, 4))


def test_views_and_turns() -> None:
    check(lambda lib, a: lib.ravel(a), arr(3, 4), transposed=True)
    check(lambda lib, a: lib.broadcast_to(a, (2, 3, 4)), arr(3, 1))
    check(lambda lib, a: a.broadcast_to(2, 3), arr(3))
    check(lambda lib, a: lib.fliplr(a), arr(3, 4), transposed=True)
    check(lambda lib, a: a.flipud(), arr(3, 4))
    for k in range(-5, 6):
        check(lambda lib, a: lib.rot90(a, k, [1, 2]), arr(2, 3, 4))
        check(lambda lib, a: a.rot90(k, [-1, 0]), arr(3, 4), transposed=True)
    raises_like_torch(lambda lib, a: lib.fliplr(a), arr(3))
    raises_like_torch(lambda lib, a: lib.rot90(a, 1, [0, 0]), arr(3, 3))
    raises_like_torch(lambda lib, a: lib.rot90(a, 1, [0]), arr(3, 3))


def test_diagflat_and_scatters() -> None:
    for offset in (0, 2, -1):
        check(lambda lib, a: lib.diagflat(a, offset), arr(2, 2), transposed=True)
    check(lambda lib, a, s: lib.select_scatter(a, s, 1, -1), arr(3, 4), arr(3))
    check(lambda lib, a, s: a.slice_scatter(s, 1, 1, None, 2), arr(3, 5), arr(3, 2), transposed=True)
    check(lambda lib, a, s: lib.slice_scatter(a, s), arr(2, 3), arr(2, 3))
    check(lambda lib, a, s: lib.diagonal_scatter(a, s, 1), arr(3, 4), arr(3))
    check(lambda lib, a, s: a.diagonal_scatter(s, 0, 1, 2), arr(2, 3, 3), arr(2, 3))
    raises_like_torch(lambda lib, a, s: lib.select_scatter(a, s, 0, 0), arr(3, 4), arr(3))


# index updates -------------------------------------------------------------------------


def ix(*values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_index_add_copy() -> None:
    check(
        lambda lib, x, s: x.index_add(1, lib.tensor(ix(0, 2, 0)), s, alpha=2),
        arr(3, 4),
        arr(3, 3),
        transposed=True,
    )
    check(lambda lib, x, s: lib.index_add(x, -1, lib.tensor(ix(1)), s), arr(2, 3), arr(2, 1))
    check(lambda lib, x, s: x.index_copy(0, lib.tensor(ix(2, 0)), s), arr(3, 4), arr(2, 4))
    check(lambda lib, x, s: x.clone().index_add_(0, lib.tensor(ix(2, 1)), s), arr(3, 2), arr(2, 2))
    raises_like_torch(lambda lib, x, s: x.index_add(0, lib.tensor(ix(-1)), s), arr(3), arr(1))
    check(
        lambda lib, x, s: x.index_add(0, lib.tensor(ix(1, 1)), s),
        arr(3, dtype="int64"),
        arr(2, dtype="int64"),
    )
    raises_like_torch(lambda lib, x, s: x.index_add(0, lib.tensor(ix(5)), s), arr(3), arr(1))
    raises_like_torch(lambda lib, x, s: x.index_add(0, lib.tensor(ix(1)), s), arr(3), arr(1, dtype="float32"))
    raises_like_torch(lambda lib, x, s: x.index_copy(0, lib.tensor(ix(1)), s), arr(3), arr(2))


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_and_put(accumulate: bool) -> None:
    check(
        lambda lib, x, v: x.index_put((lib.tensor(ix(0, 2, 1)), lib.tensor(ix(1, 1, 3))), v, accumulate),
        arr(3, 4),
        arr(3),
    )
    if accumulate:  # a repeated position adds every time (without accumulate: one of them wins)
        check(
            lambda lib, x, v: x.index_put((lib.tensor(ix(0, 2, 0)), lib.tensor(ix(1, 1, 1))), v, True),
            arr(3, 4),
            arr(3),
        )
    check(
        lambda lib, x, v: lib.index_put(x, (lib.tensor(ix(1, -1)),), v, accumulate=accumulate),
        arr(3, 4),
        arr(4),
        transposed=True,
    )
    check(
        lambda lib, x, m, v: x.index_put((m,), v, accumulate),
        arr(3, 4),
        arr(3, 4, dtype="bool"),
        np.array(2.5),
    )
    if accumulate:  # a repeated position: added each time (without accumulate the winner is unspecified)
        check(lambda lib, x, v: x.put(lib.tensor(ix(1, 1, -1)), v, accumulate=True), arr(2, 3), arr(3))
    check(lambda lib, x, v: x.put(lib.tensor(ix(4, 0)), v, accumulate), arr(2, 3), arr(2), transposed=True)
    raises_like_torch(lambda lib, x, v: x.put(lib.tensor(ix(6)), v), arr(2, 3), arr(1))


def test_take_and_masks() -> None:
    check(lambda lib, x: x.take(lib.tensor(ix(-1, 0, 5, 2)).reshape(2, 2)), arr(2, 3), transposed=True)
    check(lambda lib, x: lib.take_along_dim(x, x.argsort(1), 1), arr(3, 4, dtype="smooth"))
    check(lambda lib, x: lib.take_along_dim(x, lib.tensor(ix(0, 2)).reshape(2, 1), 0), arr(3, 4))
    check(lambda lib, x: x.take_along_dim(lib.tensor(ix(3, 0))), arr(3, 2))
    check(lambda lib, x: lib.masked_select(x, x > 0), arr(3, 4), transposed=True)
    check(lambda lib, x, m: x.masked_select(m), arr(3, 1), arr(4, dtype="bool"))
    check(lambda lib, x, m, s: x.masked_scatter(m, s), arr(3, 4), arr(4, dtype="bool"), arr(20))
    check(lambda lib, x, m, s: x.clone().masked_scatter_(m, s), arr(2, 3), arr(2, 3, dtype="bool"), arr(6))
    raises_like_torch(lambda lib, x: x.take(lib.tensor(ix(6))), arr(2, 3))
    raises_like_torch(lambda lib, x, m, s: x.masked_scatter(m, s), arr(3), np.ones(3, bool), arr(2))
    raises_like_torch(lambda lib, x, m: x.masked_select(m), arr(3), arr(3, dtype="int64"))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce: str, include_self: bool) -> None:
    index = ix(0, 2, 0, 3, 3, 3).reshape(2, 3)
    check(
        lambda lib, x, s: x.scatter_reduce(1, lib.tensor(index), s, reduce, include_self=include_self),
        arr(3, 4, dtype="smooth"),
        arr(2, 3, dtype="smooth"),
    )
    check(
        lambda lib, x, s: x.scatter_reduce(1, lib.tensor(index), s, reduce, include_self=include_self),
        arr(3, 4, dtype="smooth"),
        arr(2, 4, dtype="smooth"),
        grad=False,
    )  # src larger than index
    check(
        lambda lib, x, s: lib.scatter_reduce(
            x, 0, lib.tensor(index.T % 2), s, reduce, include_self=include_self
        ),
        arr(2, 2, dtype="smooth"),
        arr(3, 2, dtype="smooth"),
        transposed=True,
    )
    check(
        lambda lib, x, s: x.scatter_reduce(1, lib.tensor(index), s, reduce, include_self=include_self),
        arr(2, 4, dtype="int64"),
        arr(2, 3, dtype="int64"),
    )


def test_positions() -> None:
    check(lambda lib, x: lib.argwhere(x), arr(3, 4, dtype="int64", low=-1, high=2), transposed=True)
    check(lambda lib, x: lib.count_nonzero(x), arr(3, 4, dtype="int64", low=-1, high=2))
    check(lambda lib, x: x.count_nonzero((0, -1)), arr(2, 3, 4, low=-1, high=1))
    for invert in (False, True):
        check(
            lambda lib, a, b: lib.isin(a, b, invert=invert), arr(3, 4, dtype="int64"), arr(3, dtype="float32")
        )
    check(lambda lib, a: lib.isin(a, 2), arr(5, dtype="int64"))
    check(lambda lib, b: lib.isin(1.5, b), arr(5))
    check(lambda lib, a, b: lib.isin(a, b), arr(4), np.zeros(0))
    check(lambda lib, a, b: lib.bucketize(a, b), arr(3, 4), np.array([-1.0, 0.0, 2.0]), transposed=True)
    check(
        lambda lib, a, b: lib.bucketize(a, b, right=True, out_int32=True), arr(5), np.array([-1.0, 0.0, 2.0])
    )
    check(lambda lib, b: lib.bucketize(0.0, b), np.array([-1.0, 0.0, 2.0]))
    raises_like_torch(lambda lib, a, b: lib.bucketize(a, b), arr(3), arr(2, 2))


# statistics ----------------------------------------------------------------------------

WITH_NAN = np.array([[1.0, 3.0, 3.0, 2.0, np.nan, 5.0], [2.0, 2.0, 1.0, 1.0, 0.0, 0.0], [np.nan] * 6])


def test_nan_reductions_and_moments() -> None:
    check(lambda lib, x: lib.nansum(x, 1), WITH_NAN)
    check(lambda lib, x: x.nansum(), WITH_NAN)
    check(lambda lib, x: lib.nanmean(x, -1, keepdim=True), WITH_NAN)
    check(lambda lib, x: lib.var_mean(x, 1), arr(3, 4), transposed=True)
    check(lambda lib, x: lib.std_mean(x, (0, 1), correction=0, keepdim=True), arr(2, 3, 4, dtype="smooth"))
    check(lambda lib, x: lib.var_mean(x, True), arr(5, dtype="smooth"))
    check(lambda lib, x: lib.aminmax(x), arr(3, 4))
    check(lambda lib, x: x.aminmax(dim=0, keepdim=True), arr(3, 4, dtype="int32"), transposed=True)
    raises_like_torch(lambda lib, x: lib.nanmean(x), arr(3, dtype="int64"))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_running_extremes(name: str) -> None:
    check(lambda lib, x: getattr(lib, name)(x, 1), WITH_NAN)
    check(lambda lib, x: getattr(x, name)(0), arr(4, 3), transposed=True)  # 0.5 grid: ties
    check(lambda lib, x: getattr(lib, name)(x, -1), arr(2, 5, dtype="int64"))
    check(lambda lib, x: getattr(lib, name)(x, 0), np.array(1.5))


def test_logcumsumexp() -> None:
    check(lambda lib, x: lib.logcumsumexp(x, 1), np.array([[1.0, -200.0, 300.0, -np.inf, 2.0]]))
    check(lambda lib, x: x.logcumsumexp(0), arr(4, 3, dtype="smooth"), transposed=True)


def test_order_statistics() -> None:
    ties = arr(3, 7, low=-1, high=2)
    distinct = RNG.permutation(21).reshape(3, 7).astype(np.float64)
    for k in (1, 3, 7):  # among ties PyTorch's quickselect picks an index of its own: distinct values
        check(lambda lib, x: lib.kthvalue(x, k, 1), distinct)
        check(lambda lib, x: lib.kthvalue(x, k, 1).values, ties, grad=False)
    check(lambda lib, x: x.kthvalue(2, 0, keepdim=True), distinct, transposed=True)
    check(lambda lib, x: lib.mode(x, 1), ties)
    check(lambda lib, x: x.mode(0, keepdim=True), ties, transposed=True)
    check(lambda lib, x: lib.mode(x), arr(4, 6, dtype="int64", low=0, high=3))
    check(lambda lib, x: lib.nanmedian(x, 1), WITH_NAN[:2])  # (an all-NaN line: PyTorch picks its own index)
    check(lambda lib, x: lib.nanmedian(x), WITH_NAN, grad=False)  # ties: PyTorch spreads the gradient
    check(lambda lib, x: x.nanmedian(0, True), ties, transposed=True)
    raises_like_torch(lambda lib, x: lib.kthvalue(x, 8, 1), ties)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles(interpolation: str) -> None:
    for name in ("quantile", "nanquantile"):
        check(lambda lib, x: getattr(lib, name)(x, 0.3, 1, interpolation=interpolation), WITH_NAN[:2])
        check(lambda lib, x: getattr(lib, name)(x, 0.5, interpolation=interpolation), WITH_NAN)
        check(
            lambda lib, x, q: getattr(x, name)(q, 0, True, interpolation=interpolation),
            arr(5, 3, dtype="smooth"),
            np.array([0.0, 0.25, 0.5, 0.9, 1.0]),
            transposed=True,
        )
        check(lambda lib, x: getattr(lib, name)(x, 0.75, -1, interpolation=interpolation), WITH_NAN)
    raises_like_torch(lambda lib, x: lib.quantile(x, 1.5), arr(3))
    raises_like_torch(lambda lib, x: lib.quantile(x, 0.5), arr(3, dtype="int64"))


# covariance, integration, runs, windows --------------------------------------------------


def test_cov_and_corrcoef() -> None:
    x, fw, aw = arr(3, 6, dtype="smooth"), np.array([1, 2, 1, 3, 1, 1]), RNG.random(6)
    check(lambda lib, a: lib.cov(a), x)
    check(lambda lib, a: a.cov(correction=0), x.T.copy(), transposed=True)
    check(lambda lib, a, f, w: lib.cov(a, fweights=f, aweights=w), x, fw, aw)
    check(lambda lib, a, f: lib.cov(a, correction=2, fweights=f), x, fw)
    check(lambda lib, a: lib.cov(a), x[0])
    check(lambda lib, a: lib.corrcoef(a), x)
    check(lambda lib, a: a.corrcoef(), x[:, :4].T.copy(), transposed=True)
    raises_like_torch(lambda lib, a: lib.cov(a), arr(2, 2, 2))


def test_trapezoid() -> None:
    y, x = arr(3, 5, dtype="smooth"), np.sort(RNG.random(5))
    for name in ("trapezoid", "trapz", "cumulative_trapezoid"):
        check(lambda lib, a: getattr(lib, name)(a), y, transposed=True)
        check(lambda lib, a, b: getattr(lib, name)(a, b), y, x)
        check(lambda lib, a, b: getattr(lib, name)(a, b, dim=0), y, arr(3, 5, dtype="smooth"))
        check(lambda lib, a: getattr(lib, name)(a, dx=0.5, dim=0), y)


def test_repeat_interleave_and_unique_consecutive() -> None:
    check(lambda lib, a: lib.repeat_interleave(a, 2), arr(2, 3), transposed=True)
    check(lambda lib, a: a.repeat_interleave(lib.tensor(ix(1, 0, 3)), dim=1), arr(2, 3))
    check(lambda lib, a: lib.repeat_interleave(a, lib.tensor(ix(2)), 0), arr(2, 3))
    check(lambda lib, c: lib.repeat_interleave(c), np.array([2, 0, 3]))
    runs = arr(3, 4, dtype="int64", low=0, high=2)
    check(lambda lib, a: lib.unique_consecutive(a, return_inverse=True, return_counts=True), runs)
    check(lambda lib, a: a.unique_consecutive(return_counts=True, dim=1), runs)
    check(
        lambda lib, a: lib.unique_consecutive(a, dim=0),
        np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]]),
        grad=False,
    )
    raises_like_torch(lambda lib, a: lib.repeat_interleave(a, -1), arr(3))


def test_unfold_narrow_copy_sum_to_size() -> None:
    check(lambda lib, a: a.unfold(1, 2, 1), arr(2, 5))
    check(lambda lib, a: a.unfold(0, 3, 2), arr(7, 3), transposed=True)
    check(lambda lib, a: a.unfold(-1, 4, 4), arr(2, 3, 4))
    check(lambda lib, a: a.unfold(0, 1, 1), np.array(3.0))
    base = mt.arange(10.0)
    view = base.unfold(0, 4, 3)  # a view, as PyTorch's: a write into the base shows in it
    base[3] = -1.0
    assert view.stride() == (3, 1) and view[0, 3].item() == view[1, 0].item() == -1.0
    check(lambda lib, a: lib.narrow_copy(a, 1, 1, 2), arr(3, 4), transposed=True)
    check(lambda lib, a: a.sum_to_size(3, 1), arr(2, 3, 4))
    check(lambda lib, a: a.sum_to_size((1, 4)), arr(3, 4), transposed=True)
    raises_like_torch(lambda lib, a: a.unfold(1, 6, 1), arr(2, 5))
    raises_like_torch(lambda lib, a: a.sum_to_size(2, 4), arr(3, 4))


# grids and factories -------------------------------------------------------------------


def same(got: Any, want: Any) -> None:
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("row, col, offset", [(3, 4, 0), (4, 3, -1), (3, 3, 2), (0, 3, 0), (2, 5, -3)])
def test_triangle_indices(row: int, col: int, offset: int) -> None:
    for name in ("tril_indices", "triu_indices"):
        same(getattr(mt, name)(row, col, offset), getattr(torch, name)(row, col, offset))


def test_grids() -> None:
    same(mt.logspace(-1, 2, 7), torch.logspace(-1, 2, 7))
    same(mt.logspace(0, 3, 4, base=2, dtype=mt.float64), torch.logspace(0, 3, 4, base=2, dtype=torch.float64))
    with pytest.warns(UserWarning):
        same(mt.range(1, 3, 0.5), torch.range(1, 3, 0.5))
    same(mt.scalar_tensor(3), torch.scalar_tensor(3))
    same(mt.scalar_tensor(2, dtype=mt.int64), torch.scalar_tensor(2, dtype=torch.int64))
    for r, replace in ((2, False), (2, True), (3, False), (4, False)):
        check(lambda lib, x: lib.combinations(x, r, replace), arr(3), grad=r <= 3)  # r = 4: empty
    check(lambda lib, x: lib.vander(x), arr(4, dtype="int64"))
    check(lambda lib, x: lib.vander(x, 3, increasing=True), arr(4), grad=False)  # torch: no gradient
    got, want = mt.empty_strided((2, 3), (1, 2)), torch.empty_strided((2, 3), (1, 2))
    assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == mt.float32
    made = mt.ones(2, dtype=mt.int32).new_empty_strided((2, 2), (1, 2))
    assert made.dtype == mt.int32 and made.stride() == (1, 2)
    raises_like_torch(lambda lib, x: lib.vander(x), arr(2, 2))
    raises_like_torch(lambda lib, x: lib.combinations(x), arr(2, 2))
