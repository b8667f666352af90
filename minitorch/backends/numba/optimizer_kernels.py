"""Numba kernels for the fused optimizer step (``optimizer_step``): all the parameters of
an optimizer updated in one call. They must agree with ``reference.optimizer_step``.

An optimizer step is a few elementwise operations per parameter. Launched one op and one
parameter at a time (the readable loop in ``minitorch/optim/``), a small model pays the
Python cost of every launch: a step of a 2-8-8-1 MLP (6 parameters) makes 12 kernel
calls with plain SGD, 24 with momentum, 78 with Adam. Here one compiled loop walks every
parameter, and per element it runs the rule from
``minitorch/backends/reference_optimizer.py`` (the same function the reference backend
calls, compiled and inlined)::

    for t in range(len(params)):                       # every parameter of the call
        for each element i of params[t]:
            params[t][i], buffers[t][i] = sgd_update(params[t][i], grads[t][i],
                                                     buffers[t][i], *scalars[t])

**How a list of tensors reaches compiled code.** Numba passes a *tuple* of arrays of one
type cheaply, and ``params[t]`` may index it at run time. A tuple's length is part of
its type, though, so every new length would compile the kernel again, and compiling
for long tuples takes minutes. So the storages go in tuples of exactly
``TENSORS_PER_CALL``, padded with empty arrays: one compilation per rule and dtype, one
call for a model of up to 8 parameters, one more per further 8. (Python lists of arrays
are checked element by element on every call, and Numba's typed lists are built anew:
docs/backend-guide.md compares the three.)

The layouts arrive as int64 arrays, one row per tensor, merged per tensor like the
elementwise kernels' (``layout.merge_dims``) and padded to one rank: ``shapes`` ``[T,
rank]``, ``strides`` ``[T, operand, rank]`` and ``offsets`` ``[T, operand]``, operands in
the order param, grad, then the states. Each tensor is walked row by row: the index math
once per row, then a running position per operand. ``scalars`` ``[T, numbers]`` holds
each tensor's numbers in the parameter's dtype, so the arithmetic rounds like PyTorch's.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from minitorch.backends import Strided
from minitorch.backends.kernel_source_version import code_version
from minitorch.backends.numba.compile_notice import announce_if_compiling
from minitorch.backends.numba.elementwise_kernels import row_start
from minitorch.backends.numba.scalar_functions import JIT_OPTIONS, jitable
from minitorch.backends.reference_optimizer import adam_update, larger, lerp, sgd_update
from minitorch.layout import merge_dims

TENSORS_PER_CALL = 8

for _function in (sgd_update, adam_update, lerp, larger):
    jitable(_function)  # compiled code may call the rules (and what they call)


@njit(error_model="numpy")
def row_count(shape):
    """How many rows (all dimensions but the last) a merged shape has."""
    rows = 1
    for d in range(shape.size - 1):
        rows *= shape[d]
    return rows


def make_sgd_kernel():
    """The kernel of rule ``"sgd"``: operands param, grad, momentum buffer."""
    version = code_version(sgd_update)  # captured: an edited rule compiles anew

    def sgd_kernel(params, grads, buffers, shapes, strides, offsets, scalars):
        """Agrees with ``reference.optimizer_step("sgd", ...)``. Without momentum the
        buffers are the parameters, read and never written."""
        assert version != -1  # keep the captured version in the cache key
        for t in range(len(params)):
            param, grad, buffer = params[t], grads[t], buffers[t]
            lr, momentum, grad_weight, weight_decay, nesterov, maximize, fresh = scalars[t]
            shape = shapes[t]
            p_step, g_step, b_step = strides[t, 0, -1], strides[t, 1, -1], strides[t, 2, -1]
            for row in range(row_count(shape)):
                p = row_start(row, shape, strides[t, 0], offsets[t, 0])
                g = row_start(row, shape, strides[t, 1], offsets[t, 1])
                b = row_start(row, shape, strides[t, 2], offsets[t, 2])
                for _ in range(shape[-1]):
                    new_param, new_buffer = sgd_update(
                        param[p], grad[g], buffer[b], lr, momentum, grad_weight, weight_decay, nesterov,
                        maximize, fresh)  # fmt: skip
                    param[p] = new_param
                    if momentum != 0:
                        buffer[b] = new_buffer
                    p, g, b = p + p_step, g + g_step, b + b_step

    return njit(**JIT_OPTIONS)(sgd_kernel)


def make_adam_kernel():
    """The kernel of rule ``"adam"``: operands param, grad, exp_avg, exp_avg_sq,
    max_exp_avg_sq."""
    version = code_version(adam_update)

    def adam_kernel(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, shapes, strides, offsets, scalars):
        """Agrees with ``reference.optimizer_step("adam", ...)``. Without amsgrad
        ``max_exp_avg_sqs`` are the parameters, read and never written."""
        assert version != -1
        for t in range(len(params)):
            param, grad, exp_avg, exp_avg_sq, max_sq = (
                params[t], grads[t], exp_avgs[t], exp_avg_sqs[t], max_exp_avg_sqs[t])  # fmt: skip
            (beta1_weight, beta1_weight_complement, beta2, grad_sq_weight, eps, weight_decay, decay,
             decoupled, amsgrad, maximize, negative_step_size, bias_correction2_sqrt) = scalars[t]
            shape = shapes[t]
            steps = strides[t, :, -1]
            for row in range(row_count(shape)):
                p = row_start(row, shape, strides[t, 0], offsets[t, 0])
                g = row_start(row, shape, strides[t, 1], offsets[t, 1])
                m = row_start(row, shape, strides[t, 2], offsets[t, 2])
                v = row_start(row, shape, strides[t, 3], offsets[t, 3])
                w = row_start(row, shape, strides[t, 4], offsets[t, 4])
                for _ in range(shape[-1]):
                    new_param, new_exp_avg, new_exp_avg_sq, new_max_sq = adam_update(
                        param[p], grad[g], exp_avg[m], exp_avg_sq[v], max_sq[w], beta1_weight,
                        beta1_weight_complement, beta2, grad_sq_weight, eps, weight_decay, decay,
                        decoupled, amsgrad, maximize, negative_step_size, bias_correction2_sqrt)  # fmt: skip
                    param[p], exp_avg[m], exp_avg_sq[v] = new_param, new_exp_avg, new_exp_avg_sq
                    if amsgrad:
                        max_sq[w] = new_max_sq
                    p, g, m, v, w = p + steps[0], g + steps[1], m + steps[2], v + steps[3], w + steps[4]

    return njit(**JIT_OPTIONS)(adam_kernel)


KERNEL_FACTORIES = {"sgd": make_sgd_kernel, "adam": make_adam_kernel}
_kernels: dict = {}  # rule -> its kernel, built on first use


# --------------------------------------------------------------------------------------
# The Python side: operands to tuples and arrays, then the kernel
# --------------------------------------------------------------------------------------


def optimizer_step(rule: str, params: list[Strided], grads: list[Strided],
                   states: tuple[list[Strided], ...], scalars: list[tuple[float, ...]]) -> None:  # fmt: skip
    """``reference.optimizer_step``, compiled: one kernel call per ``TENSORS_PER_CALL``
    parameters (all of one dtype)."""
    kernel = _kernels.get(rule)
    if kernel is None:
        kernel = _kernels[rule] = KERNEL_FACTORIES[rule]()
    announce_if_compiling(kernel, f"the fused {rule} step")
    dtype = params[0].storage.dtype
    groups = (params, [_readable(grad) for grad in grads], *states)  # the kernel's operand order
    for begin in range(0, len(params), TENSORS_PER_CALL):
        chunk = slice(begin, begin + TENSORS_PER_CALL)
        storages = [_padded(tuple(s.storage for s in group[chunk]), dtype) for group in groups]
        layouts = tuple(group[t][1:] for t in range(len(params))[chunk] for group in groups)
        kernel(*storages, *call_layout(layouts, len(groups)), scalar_table(tuple(scalars[chunk]), dtype))


def _readable(grad: Strided) -> Strided:
    """A gradient whose storage is a read-only array (``from_numpy`` of one) would have a
    type of its own in the tuple, which the kernel cannot index; it only reads it, so a
    copy does."""
    return grad if grad.storage.flags.writeable else grad._replace(storage=grad.storage.copy())


@functools.cache
def _empty(dtype: np.dtype) -> np.ndarray:
    return np.empty(0, dtype)


def _padded(storages: tuple, dtype: np.dtype) -> tuple:
    """``storages`` and empty arrays up to ``TENSORS_PER_CALL`` (one tuple type for all)."""
    return storages + (_empty(dtype),) * (TENSORS_PER_CALL - len(storages))


@functools.lru_cache(maxsize=256)
def call_layout(layouts: tuple, operand_count: int) -> tuple:
    """``(shapes, strides, offsets)`` of one kernel call from the ``(shape, strides,
    offset)`` of every operand of every tensor (tensor by tensor): each tensor's layout
    merged (``layout.merge_dims``), padded in front to one rank with size-1 dimensions,
    and padded tensors of shape 0. A training loop repeats the same layouts every step,
    so this is built once."""
    tensors = [layouts[i : i + operand_count] for i in range(0, len(layouts), operand_count)]
    merged = [merge_dims(operands[0][0], *(strides for _, strides, _ in operands)) for operands in tensors]
    rank = max(len(shape) for shape, _ in merged)
    shapes = np.zeros((TENSORS_PER_CALL, rank), dtype=np.int64)
    strides = np.zeros((TENSORS_PER_CALL, operand_count, rank), dtype=np.int64)
    offsets = np.zeros((TENSORS_PER_CALL, operand_count), dtype=np.int64)
    for t, ((shape, operand_strides), operands) in enumerate(zip(merged, tensors)):
        shapes[t] = (1,) * (rank - len(shape)) + shape
        strides[t, :, rank - len(shape) :] = operand_strides
        offsets[t] = [offset for _, _, offset in operands]
    return shapes, strides, offsets


@functools.lru_cache(maxsize=256)
def scalar_table(rows: tuple, dtype: np.dtype) -> np.ndarray:
    """The numbers of each tensor, one row each, rounded to ``dtype`` (as PyTorch rounds
    a Python scalar to the tensor's dtype); padded tensors get zeros."""
    table = np.zeros((TENSORS_PER_CALL, len(rows[0])), dtype=dtype)
    table[: len(rows)] = rows
    return table
