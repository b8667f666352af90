"""RMSprop: divide each step by a running root-mean-square of recent gradients.

For each parameter ``p`` with gradient ``g`` (PyTorch's formulation)::

    g = g + weight_decay * p                              (L2 penalty, if weight_decay)
    v = alpha * v + (1 - alpha) * g * g                   running mean of g², v starts at 0
    if centered:                                          subtract the running mean of g
        m = alpha * m + (1 - alpha) * g
        denominator = sqrt(v - m * m) + eps
    else:
        denominator = sqrt(v) + eps
    if momentum:  b = momentum * b + g / denominator;  p = p - lr * b
    else:         p = p - lr * g / denominator

A parameter whose gradients are large takes small steps and one whose gradients are
small takes larger ones: each coordinate gets its own step size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitorch import creation
from minitorch.autograd.grad_mode import no_grad
from minitorch.optim.optimizer import Optimizer


class RMSprop(Optimizer):
    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, *,
                 maximize: bool = False) -> None:  # fmt: skip
        for name, value in (("learning rate", lr), ("epsilon value", eps),
                            ("momentum value", momentum), ("weight_decay value", weight_decay),
                            ("alpha value", alpha)):  # fmt: skip
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {"lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay,
                    "momentum": momentum, "centered": centered, "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    grad = -param.grad if group["maximize"] else param.grad
                    if group["weight_decay"] != 0:
                        grad = grad + param * group["weight_decay"]
                    state = self.state.setdefault(param, {})
                    if not state:
                        # The step count is a 0-d tensor counted in place, as PyTorch
                        # keeps it: a compiled step's replay counts it too.
                        state["step"] = creation.zeros(())
                        state["square_avg"] = creation.zeros_like(param)
                        if momentum > 0:
                            state["momentum_buffer"] = creation.zeros_like(param)
                        if group["centered"]:
                            state["grad_avg"] = creation.zeros_like(param)
                    state["step"].add_(1)
                    square_avg = state["square_avg"] * alpha + grad * grad * (1 - alpha)
                    state["square_avg"] = square_avg
                    if group["centered"]:
                        grad_avg = state["grad_avg"] * alpha + grad * (1 - alpha)
                        state["grad_avg"] = grad_avg
                        denominator = (square_avg - grad_avg * grad_avg).sqrt() + eps
                    else:
                        denominator = square_avg.sqrt() + eps
                    if momentum > 0:
                        buffer = state["momentum_buffer"] * momentum + grad / denominator
                        state["momentum_buffer"] = buffer
                        param.sub_(buffer * group["lr"])
                    else:
                        param.sub_(grad / denominator * group["lr"])
        return loss
