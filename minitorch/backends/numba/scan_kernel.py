"""The Numba kernel of ``scan`` (``cumsum``, ``cumprod``). It must agree with
``reference.scan``; both Numba backends use it.

A scan folds every prefix of a line, so each line is one loop that carries its running
value from one element to the next: the elements of a line cannot be split between
threads the way a reduction's can. The caller splits the tensor as a reduction does
(``layout.merge_kept_dims``): the *kept* dimensions, merged, pick a line; the scanned
dimension walks it, ``length`` elements ``out_step`` apart in ``out`` and ``a_step`` apart
in ``a``::

    for each line (an index into the kept dimensions):
        acc = identity
        for j in range(length):
            acc = combine(acc, a[line start + j * a_step])
            out[line start + j * out_step] = acc

Lines run one after another (no threads): a scan is rarely large enough for a parallel
loop to pay for waking the threads.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from minitorch import layout, scalar_ops
from minitorch.backends import Strided
from minitorch.backends.kernel_source_version import code_version
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, reduce_functions

ordinal_to_index = njit(**JIT_OPTIONS)(layout.ordinal_to_index)
index_to_position = njit(**JIT_OPTIONS)(layout.index_to_position)
# A checksum of scalar_ops.py (and of this folder), which the kernels capture: Numba keys
# its disk cache on captured values, so editing a combine function compiles them anew
# (see ``code_version``).
SOURCE_VERSION = code_version(scalar_ops.add)


@functools.cache
def scan_kernel(op: str):
    """The kernel of the running fold ``op`` (``"sum"`` or ``"prod"``: a reduction with an
    identity), with its combine function inlined; it compiles on its first call."""
    combine, identity = reduce_functions(op)
    start_value = float(identity)
    version = SOURCE_VERSION

    def scan_loop(out, a, shape, strides, out_offset, a_offset, length, out_step, a_step, lines):
        """Agrees with ``reference.scan`` (see the module docstring)."""
        assert version == SOURCE_VERSION  # the captured checksum (see above)
        index = np.zeros(shape.size, dtype=np.int64)
        for line in range(lines):
            ordinal_to_index(line, shape, index)
            o = index_to_position(index, strides[0], out_offset)
            p = index_to_position(index, strides[1], a_offset)
            out[o] = start_value  # written, then read: acc gets out's dtype
            acc = out[o]
            for j in range(length):
                acc = combine(acc, a[p + j * a_step])
                out[o + j * out_step] = acc

    return njit(**JIT_OPTIONS)(scan_loop)


def scan(op: str, out: Strided, a: Strided, dim: int) -> None:
    """``out[.., j, ..] = fold of a[.., 0..j, ..]``: the running ``sum`` or ``prod``."""
    length = a.shape[dim]
    if layout.numel(a.shape) == 0:
        return
    shape, strides = layout.merge_kept_dims(a.shape, dim, out.strides, a.strides)
    scan_kernel(op)(out.storage, a.storage, np.array(shape, dtype=np.int64),
                    np.array(strides, dtype=np.int64).reshape(2, len(shape)), out.offset,
                    a.offset, length, out.strides[dim], a.strides[dim], layout.numel(shape))  # fmt: skip
