"""Kernel backends. Each backend is one module (or package) that implements the same few primitives.

The contract (what ``minitorch/dispatch/`` calls; the reference backend is the spec):

A kernel never sees a Tensor. It sees ``Strided`` operands: ``(storage, shape, strides,
offset)``, where ``storage`` is the flat 1-D array of the operand's device (a NumPy array
on "cpu"). Dispatch checks only that every operand lives on one device; everything else
below is the job of the ops layer, which validates shapes, dtypes and indices before it
calls dispatch. So a kernel may assume:

* every index it computes is inside its storage (no bounds checks in kernels);
* for ``map``/``zip``/``where`` every input has exactly the output's shape (broadcast
  inputs arrive as stride-0 views) and the inputs share one dtype; ``out`` may have
  another dtype (comparisons write bool, ``copy`` converts);
* ``out`` never overlaps an input in memory unless it is the very same layout;
* ``reduce``/``arg_reduce``: ``out`` has the input's shape with ``shape[dim] == 1``;
* ``matmul``: ``a`` is ``[B, n, k]``, ``b`` is ``[B, k, m]``, ``out`` is ``[B, n, m]``,
  all one dtype (batch strides may be 0 for broadcasting);
* ``gather``/``scatter_add``: ``index`` is int64, has the shape of ``out`` (gather) or
  ``src`` (scatter_add), and every value is a valid index along ``dim``;
* ``sort``: ``values`` and ``indices`` (int64) have ``a``'s shape, at least 1-D;
* ``softmax``: ``out`` has ``a``'s shape and dtype, a float, at least 1-D; so do ``grad`` and
  ``y`` in ``log_softmax_backward``;
* ``lu_factor``/``lu_solve``/``svd``: batches of matrices ``[B, rows, cols]``, floating
  point; ``lu`` is square, ``pivots`` int64 ``[B, n]``; nothing empty reaches ``svd``.

Functions each backend module provides::

    NAME: str; DEVICE_TYPE: str ("cpu" or "cuda")
    empty(numel, numpy_dtype) -> storage          # uninitialised flat storage
    from_numpy(array) -> storage                  # copy a 1-D NumPy array onto the device
    to_numpy(storage) -> numpy array              # copy back (CPU backends: no copy)
    map(op, out, a)                  out[i] = f(a[i])                  f = MAP_OPS[op].fn
    zip(op, out, a, b)               out[i] = f(a[i], b[i])            f = ZIP_OPS[op].fn
    where(out, cond, a, b)           out[i] = a[i] if cond[i] else b[i]
    reduce(op, out, a, dim)          out[.., 0, ..] = fold of a[.., j, ..] over j
    arg_reduce(op, out, a, dim)      index j of the first max ("argmax") or min ("argmin")
    matmul(out, a, b)                out[z, i, j] = sum_k a[z, i, k] * b[z, k, j]
    gather(out, a, dim, index)       out[i][j][k] = a[i][index[i][j][k]][k]      (dim 1)
    scatter_add(out, dim, index, src) out[i][index[i][j][k]][k] += src[i][j][k]  (dim 1)
    scan(op, out, a, dim)            out[.., j, ..] = fold of a[.., 0..j, ..]    (cumsum, cumprod)
    softmax(op, out, a, dim)         each line along dim: exp(a - max) / sum of them ("softmax"),
                                     or (a - max) - log(that sum) ("log_softmax")
    log_softmax_backward(out, grad, y, dim)   each line along dim: grad - exp(y) * sum(grad)
    sort(values, indices, a, dim, descending)   each line along dim, stable, NaN largest
    lu_factor(lu, pivots)            in place: A -> L and U of P A = L U (partial pivoting)
    lu_solve(x, lu, pivots)          in place: B -> X with A X = B, from A's factors
    svd(u, s, vh, a)                 A = U diag(S) Vh; u [B, m, m] asks for full matrices
    optimizer_step(rule, params, grads, states, scalars)   optional; for every tensor t:
                                     params[t][i], states[..][t][i] = rule(params[t][i],
                                     grads[t][i], states[..][t][i], *scalars[t])
    fused_kernels.compile_fused(steps, input_dtypes, shape, strides) -> (kernel, source)
                                     optional (a submodule): one generated kernel for a
                                     chain of map/zip/where steps (``FusedStep``)
    collect_launches() -> context manager of a list   optional, for backends whose
                                     launches are queued (CUDA): the queued work of the
                                     calls inside, each stamped with its start and end
                                     when its stream runs it (the dispatch viewer's rows)
    from_numpy(array, non_blocking=True)   optional too (CUDA): the copy is queued
    map_runner(op, shape, out_strides, a_strides) -> run(out, a, out_offset, a_offset)
    zip_runner(op, shape, out_strides, a_strides, b_strides)
                       -> run(out, a, b, out_offset, a_offset, b_offset)
    reduce_runner(op, shape, dim, out_strides, a_strides) -> run(out, a, out_offset, a_offset)
    takes_runner(numpy_dtype) -> bool
                                     optional (Numba): ``map``/``zip``/``reduce`` for one layout,
                                     called with storages and offsets only, for the
                                     dtypes ``takes_runner`` accepts (dispatch keeps one
                                     per layout: its "plans")
"""

import os
from typing import Any, NamedTuple

# MINITORCH_DEBUG, read once: 1 prints each kernel call (dispatch) and each CUDA kernel
# loaded, 2 adds strides and the CUDA specialisation. ``dispatch.set_debug`` changes it.
debug_level = int(os.environ.get("MINITORCH_DEBUG", "0") or 0)


class Strided(NamedTuple):
    """What a kernel sees of a tensor: the flat storage and how to read it."""

    storage: Any
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int


class FusedStep(NamedTuple):
    """One scalar op of a fused elementwise kernel (optional ``compile_fused``, reached
    through ``dispatch.compile_fused``): ``value = op(values[args[0]], ...)``, rounded to
    ``dtype``. The kernel's values are numbered: its inputs first, then one per step; the
    last step's value is what it stores in ``out``."""

    primitive: str  # "map", "zip" or "where"
    op: str  # the scalar op of MAP_OPS or ZIP_OPS ("where" for where)
    args: tuple[int, ...]  # the values it reads (for where: cond, a, b)
    dtype: str  # the NumPy dtype name its result is stored as ("float32", "bool")


# PyTorch's ``torch.backends.mps`` and ``torch.backends.cudnn``, which tutorials query
# before picking a device: two small answer-only modules, no kernels.
from minitorch.backends import cudnn, mps  # noqa: E402, F401 (attributes for users)
