"""NAdam: Adam with Nesterov momentum (Dozat, 2016).

Nesterov's trick is to take the gradient step from where momentum is about to carry the
weight, not from where it is. In Adam's terms: the step mixes this step's gradient and
the momentum of the *next* step, each with its own bias correction. The momentum
coefficient ``mu_t`` warms up over the first few hundred steps (``momentum_decay``)::

    t += 1
    g = g + weight_decay * p          (or p *= 1 - lr * weight_decay, if decoupled)
    mu_t      = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))
    mu_{t+1}  = beta1 * (1 - 0.5 * 0.96^((t + 1) * momentum_decay))
    P = P * mu_t                                   product of every mu so far (mu_product)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g^2
    d = sqrt(v / (1 - beta2^t)) + eps
    p = p - lr * (1 - mu_t) / (1 - P) * g / d - lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / d

``decoupled_weight_decay=True`` is AdamW's kind of weight decay (NAdamW).

Every state tensor is updated in place and the step count and ``mu_product`` are 0-d
tensors, so a step under ``minitorch.compile`` replays exactly.
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch.optim.adagrad import _refuse_options
from minitorch.optim.adamax import _check_adam_options
from minitorch.optim.optimizer import Optimizer


class NAdam(Optimizer):
    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:  # fmt: skip
        _check_adam_options(lr, betas, eps, weight_decay)
        if momentum_decay < 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _refuse_options(differentiable=differentiable)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}  # fmt: skip
        super().__init__(params, defaults)

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        lr, (beta1, beta2), weight_decay = group["lr"], group["betas"], group["weight_decay"]
        decay = group["momentum_decay"]
        grad = -param.grad if group["maximize"] else param.grad
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = creation.zeros((), device=param.device)
            state["mu_product"] = creation.ones((), device=param.device)
            state["exp_avg"] = creation.zeros_like(param.detach())
            state["exp_avg_sq"] = creation.zeros_like(param.detach())
        step = self._count_step(state)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad + param * weight_decay
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        # PyTorch multiplies by mu as a Python number: rounded to mu_product's dtype first.
        state["mu_product"].mul_(mu.to(state["mu_product"].dtype))
        mu_product = state["mu_product"].double()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denominator = (exp_avg_sq / (1 - beta2**step)).sqrt() + group["eps"]
        param.add_(grad / denominator * (-lr * (1.0 - mu) / (1.0 - mu_product)))
        param.add_(exp_avg / denominator * (-lr * mu_next / (1.0 - mu_product * mu_next)))
