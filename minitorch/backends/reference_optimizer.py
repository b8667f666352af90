"""The fused optimizer step of the reference backend: its element rules and its loop.

``optimizer_step`` (a primitive: see ``minitorch/backends/__init__.py``) updates every
parameter of an optimizer in one kernel call. Per element it runs one of the rules
below, which are PyTorch's formulas (``torch.optim.SGD`` and ``Adam``) written for one
number instead of one tensor. The loop at the end calls them from plain Python; the
Numba backend compiles the very same functions into its loop
(``backends/numba/optimizer_kernels.py``).

Every number arrives in the parameter's dtype (float32 or float64), so the arithmetic
rounds where PyTorch's does: PyTorch turns a Python scalar into the tensor's dtype before
an op (``p.mul_(0.9)`` multiplies by ``float32(0.9)``). Anything PyTorch computes from
Python floats (``1 - dampening``, ``lr / (1 - beta1**step)``) is computed in float64 by
the caller and passed in. Flags (``nesterov``, ``maximize``...) arrive as 0 or 1. A
kernel passes each rule's numbers in the order of the function's arguments after the
tensors' values.

No constant appears in the arithmetic below: a literal ``1`` next to a float32 would make
Numba compute in float64 (NumPy would not), and the two backends must round alike.
"""

from __future__ import annotations

import numpy as np

from minitorch.backends import Strided
from minitorch.layout import index_to_position, numel, ordinal_to_index


def sgd_update(param, grad, buffer, lr, momentum, grad_weight, weight_decay, nesterov, maximize, fresh):
    """One element of ``torch.optim.SGD``'s step. Returns the new ``(param, buffer)``::

        g = -grad if maximize else grad
        g = g + weight_decay * param                   (if weight_decay)
        buffer = g  if fresh  else  momentum * buffer + (1 - dampening) * g
                                                       (if momentum; fresh: no buffer yet)
        g = g + momentum * buffer  if nesterov  else  buffer
        param = param - lr * g

    ``grad_weight`` is ``1 - dampening``. Without momentum the buffer is not used (the
    kernel passes the parameter in its place and writes nothing back).
    """
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad + weight_decay * param
    if momentum != 0:
        buffer = grad if fresh else buffer * momentum + grad_weight * grad
        grad = grad + momentum * buffer if nesterov else buffer
    return param - lr * grad, buffer


def lerp(start, end, weight, weight_complement):
    """``start + weight * (end - start)``, as PyTorch's ``lerp`` computes it: from the
    nearer end, so that ``weight`` near 1 loses no precision. ``weight_complement`` is
    ``1 - weight`` (computed in the same dtype by the caller)."""
    if abs(weight) < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * weight_complement


def larger(a, b):
    """``torch.maximum`` of two numbers: the larger, or NaN if either is NaN."""
    return a if a > b or a != a else b


def adam_update(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, beta1_weight, beta1_weight_complement,
                beta2, grad_sq_weight, eps, weight_decay, decay, decoupled, amsgrad, maximize,
                negative_step_size, bias_correction2_sqrt):  # fmt: skip
    """One element of ``torch.optim.Adam``'s (and ``AdamW``'s) step. Returns the new
    ``(param, exp_avg, exp_avg_sq, max_exp_avg_sq)``::

        g = -grad if maximize else grad
        if weight_decay:  param = param * (1 - lr * weight_decay)    (AdamW: decoupled)
                          or  g = g + weight_decay * param            (Adam: L2 penalty)
        exp_avg    = lerp(exp_avg, g, 1 - beta1)
        exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
        v = max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq)   if amsgrad  else  exp_avg_sq
        param = param - step_size * exp_avg / (sqrt(v) / sqrt(1 - beta2**step) + eps)

    with ``step_size = lr / (1 - beta1**step)``; the caller passes ``decay``,
    ``beta1_weight = 1 - beta1``, ``grad_sq_weight = 1 - beta2``, ``-step_size`` and
    ``sqrt(1 - beta2**step)``. Without amsgrad ``max_exp_avg_sq`` is not used.
    """
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if decoupled:
            param = param * decay
        else:
            grad = grad + weight_decay * param
    exp_avg = lerp(exp_avg, grad, beta1_weight, beta1_weight_complement)
    exp_avg_sq = exp_avg_sq * beta2 + grad_sq_weight * grad * grad
    second_moment = exp_avg_sq
    if amsgrad:
        max_exp_avg_sq = larger(max_exp_avg_sq, exp_avg_sq)
        second_moment = max_exp_avg_sq
    denominator = np.sqrt(second_moment) / bias_correction2_sqrt + eps
    return param + negative_step_size * exp_avg / denominator, exp_avg, exp_avg_sq, max_exp_avg_sq


UPDATES = {"sgd": sgd_update, "adam": adam_update}  # rule name -> its function


def optimizer_step(rule: str, params: list[Strided], grads: list[Strided],
                   states: tuple[list[Strided], ...], scalars: list[tuple[float, ...]]) -> None:  # fmt: skip
    """Update many parameters in one call with the element rule ``UPDATES[rule]``::

        for t in range(len(params)):                        # every parameter
            for each element i of params[t]:
                params[t][i], states[0][t][i], ... = update(
                    params[t][i], grads[t][i], states[0][t][i], ..., *scalars[t])

    ``states`` holds one list per state of the rule (SGD: the momentum buffers; Adam:
    ``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq``). A state the rule does not use
    arrives as the parameter itself and is not written. ``scalars[t]`` are the rule's
    numbers for parameter ``t``, rounded to the parameter's dtype first.
    """
    update = UPDATES[rule]
    with np.errstate(all="ignore"):
        for t, (param, grad) in enumerate(zip(params, grads)):
            state_values = [state[t] for state in states]
            operands = [param, grad, *state_values]  # what update() reads
            numbers = [param.storage.dtype.type(number) for number in scalars[t]]
            index = [0] * len(param.shape)
            for ordinal in range(numel(param.shape)):
                ordinal_to_index(ordinal, param.shape, index)
                values = [s.storage[index_to_position(index, s.strides, s.offset)] for s in operands]
                new_param, *new_states = update(*values, *numbers)
                param.storage[index_to_position(index, param.strides, param.offset)] = new_param
                for state, value in zip(state_values, new_states):
                    if state.storage is not param.storage:  # (a state the rule does not use)
                        state.storage[index_to_position(index, state.strides, state.offset)] = value
