"""Adam and AdamW: gradient descent with a per-weight step size.

Adam keeps two running averages per parameter: ``m`` of the gradient (momentum) and ``v``
of its square (how large gradients of this weight usually are). Each weight then moves
by about ``lr`` in the direction of ``m``, whatever the scale of its gradients::

    t += 1
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g^2
    p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

(the ``1 - beta^t`` factors correct for ``m`` and ``v`` starting at zero). Weight decay:
Adam adds ``weight_decay * p`` to the gradient (an L2 penalty, which then gets rescaled
like any gradient); AdamW instead shrinks the weight directly, ``p *= 1 - lr * wd``
("decoupled" weight decay), which usually works better.

``_update`` below is that recipe, one parameter at a time: the readable specification,
and what ``foreach=False`` runs. By default (``foreach=None``) the same math runs as one
fused kernel call for all the parameters (``minitorch/ops/optimizer_step.py``).
"""

from __future__ import annotations

from typing import Any

from minitorch.ops.optimizer_step import adam_rows, fused_adam_
from minitorch.optim.optimizer import Optimizer


class Adam(Optimizer):
    has_fused_step = True

    decoupled_weight_decay = False

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None) -> None:  # fmt: skip
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for index in (0, 1):
            if not 0.0 <= betas[index] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {betas[index]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach}  # fmt: skip
        super().__init__(params, defaults)

    def _state(self, param: Any, group: dict[str, Any]) -> dict[str, Any]:
        """``param``'s state, made on its first step: the step count and the moments."""
        state = self.state.setdefault(param, {})
        if not state:
            state["step"] = 0.0  # a number (PyTorch keeps a 0-d tensor): no kernel to count
            state["exp_avg"] = param.detach().new_zeros(param.shape)
            state["exp_avg_sq"] = param.detach().new_zeros(param.shape)
        if group["amsgrad"] and "max_exp_avg_sq" not in state:
            state["max_exp_avg_sq"] = param.detach().new_zeros(param.shape)
        return state

    def _update(self, param: Any, group: dict[str, Any]) -> None:
        """The recipe above for one parameter."""
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay = group["weight_decay"]
        grad = -param.grad if group["maximize"] else param.grad
        state = self._state(param, group)
        state["step"] = step = float(state["step"]) + 1
        if weight_decay != 0:
            if self.decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad + param * weight_decay
        exp_avg = state["exp_avg"] + (grad - state["exp_avg"]) * (1 - beta1)
        exp_avg_sq = state["exp_avg_sq"] * beta2 + grad * (1 - beta2) * grad
        state["exp_avg"], state["exp_avg_sq"] = exp_avg, exp_avg_sq
        if group["amsgrad"]:
            exp_avg_sq = state["max_exp_avg_sq"] = state["max_exp_avg_sq"].maximum(exp_avg_sq)
        step_size = lr / (1 - beta1**step)
        denominator = exp_avg_sq.sqrt() / (1 - beta2**step) ** 0.5 + eps
        param.add_(exp_avg * -step_size / denominator)  # (the order of PyTorch's addcdiv_)

    def _fused_step(self, params: list, group: dict[str, Any]) -> None:
        """The same update for all of ``params`` in one kernel call."""
        states = [self._state(param, group) for param in params]

        def count_step() -> list[float]:
            for state in states:
                state["step"] = float(state["step"]) + 1
            return [state["step"] for state in states]

        def hyperparameters() -> dict[str, Any]:
            beta1, beta2 = group["betas"]
            return {"lr": group["lr"], "beta1": beta1, "beta2": beta2, "eps": group["eps"],
                    "weight_decay": group["weight_decay"], "amsgrad": group["amsgrad"],
                    "maximize": group["maximize"],
                    "decoupled_weight_decay": self.decoupled_weight_decay}  # fmt: skip

        def rows_again() -> list[tuple]:
            """What this method does in Python, for each replay of a compiled step: count
            the step, and work out its bias corrections."""
            return adam_rows(params, count_step(), **hyperparameters())

        fused_adam_(params, [param.grad for param in params], [state["exp_avg"] for state in states],
                    [state["exp_avg_sq"] for state in states],
                    [state["max_exp_avg_sq"] for state in states] if group["amsgrad"] else None,
                    count_step(), rows_again=rows_again, **hyperparameters())  # fmt: skip


class AdamW(Adam):
    """Adam with decoupled weight decay (default ``weight_decay=1e-2``, as in PyTorch)."""

    decoupled_weight_decay = True

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None) -> None:  # fmt: skip
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize, foreach=foreach)
