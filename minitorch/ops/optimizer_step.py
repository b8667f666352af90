"""The fused optimizer step: every parameter of an optimizer updated in one kernel call.

``optim.SGD``, ``optim.Adam`` and ``optim.AdamW`` call ``fused_sgd_`` / ``fused_adam_``
unless they were made with ``foreach=False``. The per-parameter loops in
``minitorch/optim/sgd.py`` and ``adam.py`` stay the readable specification; these give
the same numbers (to float rounding) with one kernel launch per step instead of a few
per parameter, which is what a small model's step costs (PyTorch's ``foreach`` path
exists for the same reason). Each function

1. checks the tensors, since the kernel trusts them: every gradient and state has its
   parameter's shape, dtype and device, and no parameter is an expanded view;
2. works out the step's numbers in float64 from Python floats, as PyTorch does
   (``1 - dampening``, Adam's bias corrections), one row per parameter;
3. launches one ``optimizer_step`` per device and dtype (``dispatch.optimizer_step``;
   the element rules are in ``minitorch/backends/reference_optimizer.py``) and bumps
   the version counter of every tensor it changed, as an in-place op does.
"""

from __future__ import annotations

from collections.abc import Callable

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.dtypes import float32, float64
from minitorch.ops.inplace import check_inplace

FUSED_DTYPES = (float32, float64)


def can_fuse(params: list[Tensor]) -> bool:
    """Whether the fused step can update ``params``: float32 or float64 tensors on
    devices whose backend has the ``optimizer_step`` kernel (the CPU backends ``numba``
    and ``reference`` have it)."""
    device_types = {param.device.type for param in params}
    return all(param.dtype in FUSED_DTYPES for param in params) and all(
        dispatch.has_primitive("optimizer_step", device_type) for device_type in device_types
    )


def sgd_rows(fresh: list[bool], *, lr: float, momentum: float, dampening: float, weight_decay: float,
             nesterov: bool, maximize: bool) -> list[tuple]:  # fmt: skip
    """The SGD rule's numbers for each parameter (``fresh``: it has no momentum buffer yet)."""
    return [(lr, momentum, 1 - dampening, weight_decay, nesterov, maximize, new) for new in fresh]


def fused_sgd_(params: list[Tensor], grads: list[Tensor], momentum_buffers: list[Tensor | None], *,
               lr: float, momentum: float, dampening: float, weight_decay: float, nesterov: bool,
               maximize: bool, rows_again: Callable[[], list[tuple]] | None = None,
               ) -> list[Tensor | None]:  # fmt: skip
    """One ``torch.optim.SGD`` step of every parameter, in place. ``momentum_buffers[i]``
    is ``None`` while parameter ``i`` has none yet; with momentum the step makes it (the
    kernel fills it with the gradient). Returns the buffers. ``rows_again``: see
    ``_launch``."""
    if momentum != 0:
        buffers = [param.new_empty(param.shape) if buffer is None else buffer
                   for param, buffer in zip(params, momentum_buffers)]  # fmt: skip
    else:
        buffers = params  # not used by the rule: read by the kernel, never written
    rows = sgd_rows([buffer is None for buffer in momentum_buffers], lr=lr, momentum=momentum,
                    dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                    maximize=maximize)  # fmt: skip
    _launch("sgd", params, grads, (buffers,), rows, rows_again)
    return buffers if momentum != 0 else list(momentum_buffers)


def adam_rows(params: list[Tensor], steps: list[float], *, lr: float, beta1: float, beta2: float,
              eps: float, weight_decay: float, amsgrad: bool, maximize: bool,
              decoupled_weight_decay: bool) -> list[tuple]:  # fmt: skip
    """The Adam rule's numbers for each parameter at its step ``steps[i]``: the bias
    corrections change every step."""
    beta1_weight = 1 - beta1
    rows = []
    for param, step in zip(params, steps):
        one = param.dtype.numpy.type(1)  # 1 - weight in the parameter's dtype, as lerp does
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        rows.append((beta1_weight, float(one - param.dtype.numpy.type(beta1_weight)), beta2, 1 - beta2,
                     eps, weight_decay, 1 - lr * weight_decay, decoupled_weight_decay, amsgrad,
                     maximize, -(lr / bias_correction1), bias_correction2**0.5))  # fmt: skip
    return rows


def fused_adam_(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
                exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor] | None,
                steps: list[float], *, lr: float, beta1: float, beta2: float, eps: float,
                weight_decay: float, amsgrad: bool, maximize: bool, decoupled_weight_decay: bool,
                rows_again: Callable[[], list[tuple]] | None = None) -> None:  # fmt: skip
    """One ``torch.optim.Adam`` step (``AdamW``'s with ``decoupled_weight_decay``) of
    every parameter, in place. ``steps[i]`` counts parameter ``i``'s steps, this one
    included; ``max_exp_avg_sqs`` is needed with ``amsgrad`` only. ``rows_again``: see
    ``_launch``."""
    rows = adam_rows(params, steps, lr=lr, beta1=beta1, beta2=beta2, eps=eps,
                     weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                     decoupled_weight_decay=decoupled_weight_decay)  # fmt: skip
    max_sqs = max_exp_avg_sqs if amsgrad else params  # without amsgrad: read, never written
    _launch("adam", params, grads, (exp_avgs, exp_avg_sqs, max_sqs), rows, rows_again)


def _launch(rule: str, params: list[Tensor], grads: list[Tensor], states: tuple[list[Tensor], ...],
            rows: list[tuple], rows_again: Callable[[], list[tuple]] | None) -> None:  # fmt: skip
    """Check, then one kernel call per (device, dtype) group of parameters.

    ``rows_again`` is the Python half of the step, for ``minitorch.compile``: a replay of
    a captured training step runs no optimizer code, yet the numbers may change between
    steps (Adam's bias corrections, a learning rate a scheduler set). So the recorded
    kernel call keeps this function, and each replay calls it for the step's numbers (and,
    for Adam, to count the step)."""
    checking_autograd = is_grad_enabled()
    for i, param in enumerate(params):
        if checking_autograd or 0 in param._strides:  # (the common case skips the call)
            check_inplace(param)  # autograd's rules, and an expanded view cannot be written
        for what, t in (("gradient", grads[i]), *(("state", state[i]) for state in states)):
            same_device = t.device is param.device or t.device == param.device
            if t._shape != param._shape or t.dtype is not param.dtype or not same_device:
                raise RuntimeError(
                    f"optimizer step: the {what} of parameter {i} is a {t.dtype.name} tensor of "
                    f"shape {list(t._shape)} on {t.device}, but the parameter is a "
                    f"{param.dtype.name} tensor of shape {list(param._shape)} on {param.device}"
                )
    first = params[0]
    if all(p.dtype is first.dtype and p.device is first.device for p in params):
        groups = {(first.device, first.dtype): range(len(params))}
    else:
        groups = {}  # (device, dtype) -> the positions of its parameters
        for i, param in enumerate(params):
            groups.setdefault((param.device, param.dtype), []).append(i)
    if len(groups) > 1:
        rows_again = None  # (one function per kernel call would count Adam's steps twice)
    for members in groups.values():
        dispatch.optimizer_step(
            rule,
            [params[i] for i in members],
            [grads[i] for i in members],
            tuple([state[i] for i in members] for state in states),
            [rows[i] for i in members],
            rows_again,
        )
    for i, param in enumerate(params):
        param._bump_version()
        for state in states:
            if state[i] is not param:  # (a state the rule does not use)
                state[i]._bump_version()
