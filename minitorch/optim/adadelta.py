"""Adadelta: RMSprop whose step size is itself a running average, so there is no
learning rate to tune (``lr`` only scales the result, 1.0 by default).

For each parameter ``p`` with gradient ``g`` (PyTorch's formulation)::

    g = g + weight_decay * p                             (L2 penalty, if weight_decay)
    v = rho * v + (1 - rho) * g * g                      running mean of g²
    delta = sqrt(u + eps) / sqrt(v + eps) * g            u: running mean of delta²
    u = rho * u + (1 - rho) * delta * delta
    p = p - lr * delta

The ratio ``sqrt(u) / sqrt(v)`` has the units of the weight (a step over a gradient),
which is Zeiler's argument for it: the step comes out in the right units by itself.

Every state tensor is updated in place and the step count is a 0-d tensor, so a step
under ``minitorch.compile`` replays exactly.
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch.optim.adagrad import _refuse_options
from minitorch.optim.optimizer import Optimizer


class Adadelta(Optimizer):
    def __init__(self, params: Any, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:  # fmt: skip
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _refuse_options(differentiable=differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}  # fmt: skip
        super().__init__(params, defaults)

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        rho, eps = group["rho"], group["eps"]
        grad = -param.grad if group["maximize"] else param.grad
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = creation.zeros((), device=param.device)
            state["square_avg"] = creation.zeros_like(param.detach())
            state["acc_delta"] = creation.zeros_like(param.detach())
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad + param * group["weight_decay"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = (square_avg + eps).sqrt()
        delta = (acc_delta + eps).sqrt() / std * grad
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-group["lr"])
