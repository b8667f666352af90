"""Test cases for the homework checks: shapes and tensors of every awkward kind.

A bug in index arithmetic hides on contiguous tensors: the checks therefore also build
*views* whose storage is read in an unusual order:

* ``contiguous``  -- a fresh tensor, row-major, offset 0;
* ``transposed``  -- the dimensions permuted (strides out of order);
* ``sliced``      -- every other element of a bigger tensor, starting at an offset;
* ``broadcast``   -- some dimensions stretched from size 1 with stride 0.

Everything is generated from a fixed seed, so a failure is the same on every run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import minitorch
from minitorch import layout
from minitorch.backends import Strided

KINDS = ("contiguous", "transposed", "sliced", "broadcast")


def rng(seed: int = 0) -> random.Random:
    """The random generator every check uses (fixed seed: reproducible failures)."""
    return random.Random(seed)


def random_shape(generator: random.Random, max_ndim: int = 4, max_size: int = 4,
                 min_ndim: int = 0) -> tuple[int, ...]:  # fmt: skip
    """A small shape; sizes of 1 appear often, since they are where bugs hide."""
    ndim = generator.randint(min_ndim, max_ndim)
    return tuple(generator.choice([1, 2, 3, max_size]) for _ in range(ndim))


def random_layouts(generator: random.Random, count: int) -> Iterator[tuple]:
    """``count`` layouts ``(shape, strides, offset, kind)`` of the four kinds, built with
    the library's own view rules from a contiguous parent."""
    for n in range(count):
        kind = KINDS[n % len(KINDS)]
        shape = random_shape(generator, min_ndim=1)
        yield (*layout_of_kind(generator, shape, kind), kind)


def layout_of_kind(generator: random.Random, shape: tuple[int, ...], kind: str) -> tuple:
    """A ``(shape, strides, offset)`` with the given shape, of one of the four kinds."""
    if kind == "contiguous":
        return shape, layout.contiguous_strides(shape), 0
    if kind == "transposed":
        order = list(range(len(shape)))
        generator.shuffle(order)
        parent = tuple(shape[d] for d in order)  # the parent's dim i is our dim order[i]
        inverse = [order.index(d) for d in range(len(shape))]
        return layout.permute(parent, layout.contiguous_strides(parent), 0, inverse)
    if kind == "sliced":
        parent = tuple(2 * size + 1 for size in shape)
        current = parent, layout.contiguous_strides(parent), 0
        for d, size in enumerate(shape):
            current = layout.slice_dim(*current, d, 1, 1 + 2 * size, 2)
        return current
    if kind == "broadcast":
        small = tuple(1 if generator.random() < 0.5 else size for size in shape)
        return layout.expand(small, layout.contiguous_strides(small), 0, shape)
    raise ValueError(f"unknown kind {kind!r}")


def random_tensor(generator: random.Random, shape: tuple[int, ...], kind: str = "contiguous",
                  dtype: minitorch.dtype = minitorch.float64) -> minitorch.Tensor:  # fmt: skip
    """A tensor of ``shape`` whose layout is of the given kind (values are random)."""
    minitorch.manual_seed(generator.randrange(2**31))
    if kind == "contiguous":
        return _values(shape, dtype)
    if kind == "transposed":
        order = list(range(len(shape)))
        generator.shuffle(order)
        parent = _values(tuple(shape[d] for d in order), dtype)
        return parent.permute(*[order.index(d) for d in range(len(shape))])
    if kind == "sliced":
        parent = _values(tuple(2 * size + 1 for size in shape), dtype)
        return parent[tuple(slice(1, 1 + 2 * size, 2) for size in shape)]
    if kind == "broadcast":
        small = tuple(1 if generator.random() < 0.5 else size for size in shape)
        return _values(small, dtype).expand(*shape)
    raise ValueError(f"unknown kind {kind!r}")


def _values(shape: tuple[int, ...], dtype: minitorch.dtype) -> minitorch.Tensor:
    if dtype.is_floating_point:
        return minitorch.randn(*shape, dtype=dtype)
    return minitorch.randint(-5, 6, shape, dtype=dtype)


def strided(t: minitorch.Tensor) -> Strided:
    """What a kernel sees of ``t``: ``Strided(storage, shape, strides, offset)``."""
    return Strided(t._storage, tuple(t.shape), tuple(t.stride()), t.storage_offset())


def describe_tensor(name: str, t: minitorch.Tensor) -> str:
    from minitorch.course.report import describe_layout

    return f"{name}: {describe_layout(tuple(t.shape), tuple(t.stride()), t.storage_offset())}"
