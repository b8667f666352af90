"""Adamax: Adam with the infinity norm in place of the root mean square.

For each parameter ``p`` with gradient ``g`` (PyTorch's formulation)::

    t += 1
    g = g + weight_decay * p                       (L2 penalty, if weight_decay)
    m = beta1 * m + (1 - beta1) * g                running mean of g, as in Adam
    u = max(beta2 * u, |g| + eps)                  a decaying maximum of |g|
    p = p - lr / (1 - beta1^t) * m / u

Adam divides by ``sqrt(v)``, an L2 average of past gradients; Kingma and Ba's Adamax
lets the power go to infinity, which leaves a running maximum: simpler, and ``u`` needs
no bias correction (a maximum does not start biased towards zero the way a mean does).

Every state tensor is updated in place and the step count is a 0-d tensor, so a step
under ``minitorch.compile`` replays exactly (see ``Optimizer._count_step``).
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch.optim.adagrad import _refuse_options
from minitorch.optim.optimizer import Optimizer


class Adamax(Optimizer):
    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:  # fmt: skip
        _check_adam_options(lr, betas, eps, weight_decay)
        _refuse_options(differentiable=differentiable)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}  # fmt: skip
        super().__init__(params, defaults)

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        beta1, beta2 = group["betas"]
        grad = -param.grad if group["maximize"] else param.grad
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = creation.zeros((), device=param.device)
            state["exp_avg"] = creation.zeros_like(param.detach())
            state["exp_inf"] = creation.zeros_like(param.detach())
        step = self._count_step(state)
        if group["weight_decay"] != 0:
            grad = grad + param * group["weight_decay"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.mul_(beta2)
        exp_inf.copy_(exp_inf.maximum(grad.abs() + group["eps"]))
        step_size = group["lr"] / (1 - beta1**step)
        param.add_(exp_avg / exp_inf * -step_size)


def _check_adam_options(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    """The checks PyTorch makes of an Adam-like optimizer's options, with its messages."""
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for index in (0, 1):
        if not 0.0 <= betas[index] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {betas[index]}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
