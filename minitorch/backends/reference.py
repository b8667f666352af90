"""The reference backend: plain Python loops over strided storage.

This file is the *executable specification* of every kernel. It is slow on purpose:
each kernel is the simplest loop that is obviously right, so the fast backends (Numba,
CUDA) are tested against it. Read it first.

Every kernel follows the same recipe:

1. walk the output elements by *ordinal* 0, 1, 2, ... (row-major order);
2. turn the ordinal into a multi-index (``ordinal_to_index``);
3. turn the multi-index into a storage position for each operand, with that operand's
   own strides and offset (``index_to_position``);
4. read, compute with a scalar function from the scalar-op table, write.

See ``minitorch/backends/__init__.py`` for what dispatch guarantees before a kernel runs.
The ``@through_float32`` above a kernel lets it take float16 and bfloat16 operands: they
are widened to float32, the loop runs as written, and the results are rounded back once
(``minitorch/backends/half_precision.py``), as PyTorch computes 16-bit floats on the CPU.
"""

from __future__ import annotations

import numpy as np

from minitorch.backends import Strided, cpu_storage
from minitorch.backends.half_precision import through_float32
from minitorch.backends.reference_linalg import lu_factor, lu_solve, svd  # noqa: F401 (primitives)
from minitorch.backends.reference_optimizer import optimizer_step  # noqa: F401 (a primitive)
from minitorch.backends.reference_sort import sort  # noqa: F401 (a primitive)
from minitorch.layout import index_to_position, numel, ordinal_to_index
from minitorch.scalar_ops import MAP_OPS, REDUCE_OPS, ZIP_OPS

NAME = "reference"
DEVICE_TYPE = "cpu"
empty, from_numpy, to_numpy = cpu_storage.empty, cpu_storage.from_numpy, cpu_storage.to_numpy  # CPU storage


@through_float32
def map(op: str, out: Strided, a: Strided) -> None:  # noqa: A001 (the primitive's name)
    """``for i: out[i] = f(a[i])`` with ``f = MAP_OPS[op].fn``."""
    f = MAP_OPS[op].fn
    index = [0] * len(out.shape)
    with np.errstate(all="ignore"):  # exp(1000) is inf, log(-1) is nan: IEEE, no warning
        for ordinal in range(numel(out.shape)):
            ordinal_to_index(ordinal, out.shape, index)
            value = a.storage[index_to_position(index, a.strides, a.offset)]
            # ``astype`` converts as C does, so a narrowing copy wraps around as in
            # PyTorch (int16 300 -> int8 44); storing a value that does not fit raises
            result = np.asarray(f(value)).astype(out.storage.dtype)
            out.storage[index_to_position(index, out.strides, out.offset)] = result


@through_float32
def zip(op: str, out: Strided, a: Strided, b: Strided) -> None:  # noqa: A001
    """``for i: out[i] = f(a[i], b[i])`` with ``f = ZIP_OPS[op].fn``.

    ``a`` and ``b`` already have the output's shape: a broadcast input arrives as a view
    with stride 0 along the stretched dimensions, so it re-reads the same cells.
    """
    f = ZIP_OPS[op].fn
    index = [0] * len(out.shape)
    with np.errstate(all="ignore"):
        for ordinal in range(numel(out.shape)):
            ordinal_to_index(ordinal, out.shape, index)
            x = a.storage[index_to_position(index, a.strides, a.offset)]
            y = b.storage[index_to_position(index, b.strides, b.offset)]
            out.storage[index_to_position(index, out.strides, out.offset)] = f(x, y)


@through_float32
def where(out: Strided, cond: Strided, a: Strided, b: Strided) -> None:
    """``for i: out[i] = a[i] if cond[i] else b[i]``."""
    index = [0] * len(out.shape)
    for ordinal in range(numel(out.shape)):
        ordinal_to_index(ordinal, out.shape, index)
        source = a if cond.storage[index_to_position(index, cond.strides, cond.offset)] else b
        value = source.storage[index_to_position(index, source.strides, source.offset)]
        out.storage[index_to_position(index, out.strides, out.offset)] = value


@through_float32
def reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Fold dimension ``dim`` of ``a`` into ``out`` (which has size 1 there)::

        for each out index o:
            acc = identity                  (or a[o with dim=0] when there is none)
            for j in range(a.shape[dim]):  acc = combine(acc, a[o with dim=j])
            out[o] = acc
    """
    reduction = REDUCE_OPS[op]
    combine = reduction.combine.fn
    index = [0] * len(out.shape)
    with np.errstate(all="ignore"):
        for ordinal in range(numel(out.shape)):
            ordinal_to_index(ordinal, out.shape, index)
            out_position = index_to_position(index, out.strides, out.offset)
            if reduction.identity is None:  # max/min: start from the first element
                acc = a.storage[index_to_position(index, a.strides, a.offset)]
                start = 1
            else:
                acc = out.storage.dtype.type(reduction.identity)
                start = 0
            for j in range(start, a.shape[dim]):
                index[dim] = j
                acc = combine(acc, a.storage[index_to_position(index, a.strides, a.offset)])
            index[dim] = 0
            out.storage[out_position] = acc


def scan(op: str, out: Strided, a: Strided, dim: int) -> None:
    """The running fold along ``dim`` (``cumsum`` for ``"sum"``, ``cumprod`` for
    ``"prod"``): every prefix of a line folded, ``out`` having ``a``'s shape::

        for each index o of the other dimensions:
            acc = identity
            for j in range(a.shape[dim]):
                acc = combine(acc, a[o with dim=j])
                out[o with dim=j] = acc
    """
    reduction = REDUCE_OPS[op]
    combine = reduction.combine.fn
    lines = out.shape[:dim] + (1,) + out.shape[dim + 1 :]  # one entry per line: dim is 0
    index = [0] * len(out.shape)
    with np.errstate(all="ignore"):
        for ordinal in range(numel(lines)):
            ordinal_to_index(ordinal, lines, index)
            acc = out.storage.dtype.type(reduction.identity)
            for j in range(a.shape[dim]):
                index[dim] = j
                acc = combine(acc, a.storage[index_to_position(index, a.strides, a.offset)])
                out.storage[index_to_position(index, out.strides, out.offset)] = acc
            index[dim] = 0


@through_float32
def softmax(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Each line along ``dim`` made into probabilities (``"softmax"``) or their logs
    (``"log_softmax"``), ``out`` having ``a``'s shape. The line is shifted by its max
    first, so that no ``exp`` overflows (the shift cancels in the quotient)::

        for each index o of the other dimensions:
            m = max over j of a[o with dim=j]           (NaN wins, as in max)
            s = sum over j of exp(a[o with dim=j] - m)
            for j:  out[o with dim=j] = exp(a[o with dim=j] - m) / s     softmax
                    out[o with dim=j] = (a[o with dim=j] - m) - log(s)   log_softmax
    """
    maximum = ZIP_OPS["maximum"].fn
    lines = out.shape[:dim] + (1,) + out.shape[dim + 1 :]  # one entry per line: dim is 0
    index = [0] * len(out.shape)

    def line_of(operand: Strided) -> list[int]:
        positions = []
        for j in range(a.shape[dim]):
            index[dim] = j
            positions.append(index_to_position(index, operand.strides, operand.offset))
        index[dim] = 0
        return positions

    with np.errstate(all="ignore"):
        for ordinal in range(numel(lines)):
            ordinal_to_index(ordinal, lines, index)
            values = [out.storage.dtype.type(a.storage[p]) for p in line_of(a)]
            top = values[0]
            for value in values[1:]:
                top = maximum(top, value)
            total = out.storage.dtype.type(0)
            for value in values:
                total = total + np.exp(value - top)
            for j, p in enumerate(line_of(out)):
                value = values[j]
                if op == "log_softmax":
                    out.storage[p] = (value - top) - np.log(total)
                else:
                    out.storage[p] = np.exp(value - top) / total


@through_float32
def log_softmax_backward(out: Strided, grad: Strided, y: Strided, dim: int) -> None:
    """The gradient of ``y = log_softmax(x)`` along ``dim``, line by line: with ``g`` the
    gradient arriving at ``y``, ``exp(y)`` is the softmax ``p``, and each line gets

        s = sum over j of g[o with dim=j]
        out[o with dim=j] = g[o with dim=j] - exp(y[o with dim=j]) * s

    (``minitorch/ops/activation_derivatives.py`` derives it). All three have one shape."""
    lines = out.shape[:dim] + (1,) + out.shape[dim + 1 :]  # one entry per line: dim is 0
    index = [0] * len(out.shape)
    with np.errstate(all="ignore"):
        for ordinal in range(numel(lines)):
            ordinal_to_index(ordinal, lines, index)
            positions = []  # (out, grad, y) positions of each element of the line
            for j in range(out.shape[dim]):
                index[dim] = j
                positions.append(tuple(index_to_position(index, operand.strides, operand.offset)
                                       for operand in (out, grad, y)))  # fmt: skip
            index[dim] = 0
            total = out.storage.dtype.type(0)
            for _, g, _ in positions:
                total = total + grad.storage[g]
            for o, g, p in positions:
                out.storage[o] = grad.storage[g] - np.exp(y.storage[p]) * total


@through_float32
def arg_reduce(op: str, out: Strided, a: Strided, dim: int) -> None:
    """Write the index along ``dim`` of the first largest (``argmax``) or smallest
    (``argmin``) element. NaN counts as larger and smaller than everything, like PyTorch.
    """
    index = [0] * len(out.shape)
    for ordinal in range(numel(out.shape)):
        ordinal_to_index(ordinal, out.shape, index)
        best_j = 0
        best = a.storage[index_to_position(index, a.strides, a.offset)]
        for j in range(1, a.shape[dim]):
            index[dim] = j
            value = a.storage[index_to_position(index, a.strides, a.offset)]
            if best != best:  # NaN already found: it stays the answer
                break
            better = value > best if op == "argmax" else value < best
            if better or value != value:
                best, best_j = value, j
        index[dim] = 0
        out.storage[index_to_position(index, out.strides, out.offset)] = best_j


@through_float32
def matmul(out: Strided, a: Strided, b: Strided) -> None:
    """Batched matrix product ``out[z] = a[z] @ b[z]``::

        for z, i, j:  out[z, i, j] = sum over k of a[z, i, k] * b[z, k, j]
    """
    batch, rows, cols = out.shape
    inner = a.shape[2]
    zero = out.storage.dtype.type(0)
    with np.errstate(all="ignore"):  # integers wrap around, as in PyTorch
        for z in range(batch):
            for i in range(rows):
                for j in range(cols):
                    acc = zero
                    for k in range(inner):
                        x = a.storage[index_to_position((z, i, k), a.strides, a.offset)]
                        y = b.storage[index_to_position((z, k, j), b.strides, b.offset)]
                        acc = acc + x * y
                    out.storage[index_to_position((z, i, j), out.strides, out.offset)] = acc


@through_float32
def gather(out: Strided, a: Strided, dim: int, index: Strided) -> None:
    """``out[i][j][k] = a[i][index[i][j][k]][k]`` (shown for ``dim == 1``): copy the
    output's multi-index, but along ``dim`` read the position the index tensor names."""
    where_ = [0] * len(out.shape)
    for ordinal in range(numel(out.shape)):
        ordinal_to_index(ordinal, out.shape, where_)
        chosen = index.storage[index_to_position(where_, index.strides, index.offset)]
        source = list(where_)
        source[dim] = int(chosen)
        value = a.storage[index_to_position(source, a.strides, a.offset)]
        out.storage[index_to_position(where_, out.strides, out.offset)] = value


@through_float32
def scatter_add(out: Strided, dim: int, index: Strided, src: Strided) -> None:
    """``out[i][index[i][j][k]][k] += src[i][j][k]`` (shown for ``dim == 1``): the
    reverse of ``gather``. Several sources may land on one cell; they all add up."""
    where_ = [0] * len(src.shape)
    for ordinal in range(numel(src.shape)):
        ordinal_to_index(ordinal, src.shape, where_)
        chosen = index.storage[index_to_position(where_, index.strides, index.offset)]
        target = list(where_)
        target[dim] = int(chosen)
        position = index_to_position(target, out.strides, out.offset)
        out.storage[position] += src.storage[index_to_position(where_, src.strides, src.offset)]
