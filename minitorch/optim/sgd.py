"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay.

For each parameter ``p`` with gradient ``g`` (PyTorch's formulation)::

    g = g + weight_decay * p                       (L2 penalty, if weight_decay)
    b = g                        on the first step (if momentum)
    b = momentum * b + (1 - dampening) * g         afterwards
    g = g + momentum * b  if nesterov  else  b
    p = p - lr * g
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitorch.autograd.grad_mode import no_grad
from minitorch.optim.optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False) -> None:  # fmt: skip
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
                weight_decay, nesterov = group["weight_decay"], group["nesterov"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    grad = -param.grad if group["maximize"] else param.grad
                    if weight_decay != 0:
                        grad = grad + param * weight_decay
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
                        grad = grad + buffer * momentum if nesterov else buffer
                    param.sub_(grad * lr)
        return loss
