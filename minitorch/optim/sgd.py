"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay.

For each parameter ``p`` with gradient ``g`` (PyTorch's formulation)::

    g = g + weight_decay * p                       (L2 penalty, if weight_decay)
    b = g                        on the first step (if momentum)
    b = momentum * b + (1 - dampening) * g         afterwards
    g = g + momentum * b  if nesterov  else  b
    p = p - lr * g

``step`` below is that recipe, one parameter at a time: the readable specification, and
what ``foreach=False`` runs. By default (``foreach=None``) the same math runs as one
fused kernel call for all the parameters (``minitorch/ops/optimizer_step.py``), which
makes a small model's step several times faster.
"""

from __future__ import annotations

from typing import Any

from minitorch.ops.optimizer_step import fused_sgd_, sgd_rows
from minitorch.optim.optimizer import Optimizer


class SGD(Optimizer):
    has_fused_step = True

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None) -> None:  # fmt: skip
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach}  # fmt: skip
        super().__init__(params, defaults)

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        grad = -param.grad if group["maximize"] else param.grad
        if group["weight_decay"] != 0:
            grad = grad + param * group["weight_decay"]
        if momentum != 0:
            state = self.state.setdefault(param, {})
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = grad.detach().clone()
            elif dampening == 0:
                buffer = buffer * momentum + grad
            else:
                buffer = buffer * momentum + grad * (1 - dampening)
            state["momentum_buffer"] = buffer
            grad = grad + buffer * momentum if group["nesterov"] else buffer
        param.sub_(grad * lr)

    def _fused_step(self, params: list, group: dict[str, Any]) -> None:
        """The same update for all of ``params`` in one kernel call."""
        buffers = [self.state.get(param, {}).get("momentum_buffer") for param in params]

        def rows_again() -> list[tuple]:
            """A later step's numbers, for a compiled step's replay (every buffer exists
            by then; the learning rate is read again, so a scheduler's change counts)."""
            return sgd_rows([False] * len(params), lr=group["lr"], momentum=group["momentum"],
                            dampening=group["dampening"], weight_decay=group["weight_decay"],
                            nesterov=group["nesterov"], maximize=group["maximize"])  # fmt: skip

        buffers = fused_sgd_(params, [param.grad for param in params], buffers, lr=group["lr"],
                             momentum=group["momentum"], dampening=group["dampening"],
                             weight_decay=group["weight_decay"], nesterov=group["nesterov"],
                             maximize=group["maximize"], rows_again=rows_again)  # fmt: skip
        if group["momentum"] != 0:
            for param, buffer in zip(params, buffers):
                self.state.setdefault(param, {})["momentum_buffer"] = buffer
