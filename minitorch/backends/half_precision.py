"""16-bit floats on the CPU backends: computed in float32, rounded once when stored.

minitorch has two 16-bit floats: ``float16`` (NumPy's ``float16`` cells) and ``bfloat16``
(``uint16`` words, the top half of a float32: see ``minitorch/dtypes.py``). Numba cannot
compile either, and the loops of the reference backend would round after every step of
a sum. PyTorch's CPU kernels do neither: they widen each 16-bit value to float32, compute
in float32, and round the result to 16 bits once, when they store it. So does every CPU
primitive here, through one decorator::

    @through_float32
    def map(op, out, a): ...          # the backend's ordinary loop

    map(op, out, a) with 16-bit floats then runs:
        wide_a   = a's elements as a new contiguous float32 array
        wide_out = out's elements as a new contiguous float32 array
        map(op, wide_out, wide_a)         # the float32 kernel, unchanged
        out's cells = wide_out rounded to out's type (nearest, ties to even)

One rounding per op: ``a + b`` is the float32 sum rounded (exactly the float16 sum), and
``sum``, ``mean`` and ``matmul`` accumulate in float32 and round the total, as PyTorch's
do. Operands of other dtypes pass through untouched. A call without 16-bit floats costs
one or two tests of a storage's dtype letter (about half a microsecond): the kernel
contract says which operands share a dtype, so only the ones that may differ are looked
at (``CHECKED``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from minitorch.backends import Strided
from minitorch.dtypes import bfloat16, float16
from minitorch.layout import contiguous_strides, numel

# storage cells -> the dtype that reads them (uint16 cells are bfloat16 words: minitorch
# has no uint16 dtype), and the NumPy letters of those cells ("e" float16, "H" uint16)
HALF_DTYPES = {float16.numpy: float16, bfloat16.numpy: bfloat16}
HALF_LETTERS = "".join(cells.char for cells in HALF_DTYPES)

# Each primitive's arguments that hold values (indices and pivots are int64 and never
# widened), and the ones among them it writes. Positions count from 0 in the signature.
VALUE_ARGUMENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "map": ((1, 2), (1,)),  # map(op, out, a)
    "zip": ((1, 2, 3), (1,)),  # zip(op, out, a, b)
    "where": ((0, 2, 3), (0,)),  # where(out, cond, a, b)
    "reduce": ((1, 2), (1,)),  # reduce(op, out, a, dim)
    "softmax": ((1, 2), (1,)),  # softmax(op, out, a, dim)
    "log_softmax_backward": ((0, 1, 2), (0,)),  # log_softmax_backward(out, grad, y, dim)
    "arg_reduce": ((2,), ()),  # arg_reduce(op, out, a, dim): out holds int64 indices
    "matmul": ((0, 1, 2), (0,)),  # matmul(out, a, b)
    "gather": ((0, 1), (0,)),  # gather(out, a, dim, index)
    "scatter_add": ((0, 3), (0,)),  # scatter_add(out, dim, index, src): adds into out
    "sort": ((0, 2), (0,)),  # sort(values, indices, a, dim, descending)
}
# The value arguments that tell whether a call has 16-bit floats. The contract
# (``minitorch/backends/__init__.py``) and the ops layer make the others share a dtype
# with one of these: the inputs of zip and where share one, and every primitive writes
# its inputs' dtype except map's copy (a cast: either side may be 16-bit) and the bool
# or int64 outputs of comparisons, any/all and arg_reduce.
CHECKED = {"map": (1, 2), "zip": (2,), "where": (0,), "reduce": (2,), "softmax": (2,),
           "log_softmax_backward": (1,), "arg_reduce": (2,), "matmul": (0,), "gather": (0,),
           "scatter_add": (0,), "sort": (2,)}  # fmt: skip


def elements(operand: Strided) -> np.ndarray:
    """The operand's elements as a NumPy array of its shape: a view of its storage."""
    if numel(operand.shape) == 0:
        return np.empty(operand.shape, operand.storage.dtype)
    itemsize = operand.storage.itemsize
    return np.lib.stride_tricks.as_strided(
        operand.storage[operand.offset :],
        shape=operand.shape,
        strides=tuple(stride * itemsize for stride in operand.strides),
    )


def widen(operand: Strided) -> Strided:
    """A contiguous float32 copy of a 16-bit float operand (exact: float32 holds every
    float16 and bfloat16 value)."""
    half = HALF_DTYPES[operand.storage.dtype]
    wide = np.asarray(half.decode(elements(operand)), dtype=np.float32)
    return Strided(wide.reshape(-1), operand.shape, contiguous_strides(operand.shape), 0)


def store(out: Strided, wide: Strided) -> None:
    """Round the float32 results in ``wide`` into the 16-bit cells of ``out``."""
    if numel(out.shape):
        half = HALF_DTYPES[out.storage.dtype]
        elements(out)[...] = half.encode(wide.storage.reshape(out.shape))


def through_float32(kernel: Callable) -> Callable:
    """Let a CPU primitive (named by ``kernel.__name__``) take 16-bit float operands:
    widen them to float32, run ``kernel`` on the copies, round what it wrote back."""
    values, written = VALUE_ARGUMENTS[kernel.__name__]
    checked = CHECKED[kernel.__name__]

    @functools.wraps(kernel)
    def run(*args):
        for i in checked:
            if args[i].storage.dtype.char in HALF_LETTERS:
                break
        else:
            return kernel(*args)  # no 16-bit floats: the kernel as it is
        wide = list(args)
        for i in values:
            if args[i].storage.dtype in HALF_DTYPES:
                wide[i] = widen(args[i])
        kernel(*wide)
        for i in written:
            if args[i].storage.dtype in HALF_DTYPES:
                store(args[i], wide[i])

    return run
