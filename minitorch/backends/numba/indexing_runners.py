"""The Python side of ``gather`` and ``scatter_add``: layout arrays once per layout.

Both walk the elements of one tensor (``out`` for gather, ``src`` for scatter_add) and
take the position along ``dim`` from the index tensor (``indexing_kernels.py``).
"""

from __future__ import annotations

import functools

from minitorch.backends import Strided
from minitorch.backends.half_precision import through_float32
from minitorch.backends.numba import parallel_policy
from minitorch.backends.numba.compile_notice import announce_if_compiling
from minitorch.backends.numba.indexing_kernels import GATHER_KERNELS, scatter_add_kernel
from minitorch.backends.numba.layouts import LAYOUT_CACHE_SIZE, indexing_arrays, nothing_to_run, offsets_array
from minitorch.layout import numel


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def gather_runner(op: str, shape: tuple[int, ...], dim: int, a_shape: tuple[int, ...],
                  out_strides: tuple[int, ...], a_strides: tuple[int, ...],
                  index_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, a, index, out_offset, a_offset, index_offset)``: ``gather`` along ``dim``
    into an ``out`` of ``shape`` (the index's), on storages laid out so, with the layout
    arrays made once; ``op`` is always ``"gather"`` (``a_shape`` keys the plan only)."""
    total = numel(shape)
    if total == 0:
        return nothing_to_run
    shape_array, strides_array = indexing_arrays(shape, (out_strides, a_strides, index_strides))
    announce_if_compiling(GATHER_KERNELS[0], "gather")

    def run(out, a, index, out_offset: int, a_offset: int, index_offset: int) -> None:
        args = (out, a, index, shape_array, strides_array, offsets_array(out_offset, a_offset, index_offset),
                dim, total)  # fmt: skip
        parallel_policy.run("gather", "gather", total, GATHER_KERNELS, args)

    return run


@through_float32
def gather(out: Strided, a: Strided, dim: int, index: Strided) -> None:
    """``out[i][j][k] = a[i][index[i][j][k]][k]`` (shown for ``dim == 1``)."""
    run = gather_runner("gather", tuple(out.shape), dim, tuple(a.shape), tuple(out.strides), tuple(a.strides),
                        tuple(index.strides))  # fmt: skip
    run(out.storage, a.storage, index.storage, out.offset, a.offset, index.offset)


@functools.lru_cache(maxsize=LAYOUT_CACHE_SIZE)
def scatter_add_runner(op: str, shape: tuple[int, ...], dim: int, out_shape: tuple[int, ...],
                       out_strides: tuple[int, ...], index_strides: tuple[int, ...],
                       src_strides: tuple[int, ...]):  # fmt: skip
    """``run(out, index, src, out_offset, index_offset, src_offset)``: ``scatter_add``
    along ``dim`` of a ``src`` of ``shape`` (the index's), on storages laid out so, with
    the layout arrays made once; ``op`` is always ``"scatter_add"`` (``out_shape`` keys
    the plan only). Serial, as the kernel must be."""
    total = numel(shape)
    if total == 0:
        return nothing_to_run
    shape_array, strides_array = indexing_arrays(shape, (src_strides, out_strides, index_strides))

    def run(out, index, src, out_offset: int, index_offset: int, src_offset: int) -> None:
        offsets = offsets_array(src_offset, out_offset, index_offset)
        scatter_add_kernel(out, index, src, shape_array, strides_array, offsets, dim, total)

    return run


@through_float32
def scatter_add(out: Strided, dim: int, index: Strided, src: Strided) -> None:
    """``out[i][index[i][j][k]][k] += src[i][j][k]`` (shown for ``dim == 1``)."""
    run = scatter_add_runner("scatter_add", tuple(src.shape), dim, tuple(out.shape), tuple(out.strides),
                             tuple(index.strides), tuple(src.strides))  # fmt: skip
    run(out.storage, index.storage, src.storage, out.offset, index.offset, src.offset)
