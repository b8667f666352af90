"""L-BFGS: a quasi-Newton method that remembers the last few steps to guess the curvature.

Newton's method steps by ``-H^-1 g``, the gradient rescaled by the inverse Hessian: the
right step size in every direction at once. BFGS builds an estimate of ``H^-1`` from how
the gradient changed along the steps taken: a step ``s = x_{k+1} - x_k`` and the change
``y = g_{k+1} - g_k`` say that the curvature along ``s`` is about ``y·s / s·s``.
*Limited-memory* BFGS keeps only the last ``history_size`` pairs ``(s, y)`` and applies
the estimate to ``g`` directly, with the *two-loop recursion* (Nocedal and Wright,
algorithm 7.4), never forming a matrix::

    q = -g
    for i = newest .. oldest:   a_i = rho_i s_i·q;  q = q - a_i y_i      (rho_i = 1 / y_i·s_i)
    r = H0 q                    H0 = y·s / y·y of the newest pair: the scale of the Hessian
    for i = oldest .. newest:   b = rho_i y_i·r;    r = r + (a_i - b) s_i
    d = r                       the direction; the step is x = x + t d

The step length ``t`` is ``lr`` (the first one scaled down to at most 1 / sum|g|), or
what the strong Wolfe line search finds (``line_search_fn="strong_wolfe"``,
``minitorch/optim/line_search.py``).

One ``step(closure)`` runs up to ``max_iter`` such iterations, each evaluating the loss
again through ``closure`` (which must zero the gradients, compute the loss, call
``backward()`` and return the loss), and stops early when the gradient or the change in
the loss or the parameters falls below its tolerance. All parameters are treated as one
flat vector; there is one parameter group, as in PyTorch.

The iteration decides its path by values (``if y·s > 1e-10``, the tolerances), so
LBFGS runs eagerly: it is not for ``minitorch.compile``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import enable_grad, no_grad
from minitorch.ops.shape import cat
from minitorch.optim.line_search import strong_wolfe
from minitorch.optim.optimizer import Optimizer


class LBFGS(Optimizer):
    def __init__(self, params: Any, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}  # fmt: skip
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ----- the parameters as one flat vector ---------------------------------------------

    def _flat_grad(self) -> Tensor:
        """Every parameter's gradient, flattened and joined (zeros where there is none)."""
        return cat([p.grad.reshape(-1) if p.grad is not None else creation.zeros(p.numel(), dtype=p.dtype)
                    for p in self._params], 0)  # fmt: skip

    def _move(self, t: Any, d: Tensor) -> None:
        """``x = x + t d``, for the flat vector ``x`` of all parameters."""
        offset = 0
        for p in self._params:
            p.add_(d[offset : offset + p.numel()].view_as(p) * t)
            offset += p.numel()

    def _evaluate_at(self, closure: Callable[[], Any], x: list[Tensor], t: Any,
                     d: Tensor) -> tuple[float, Tensor]:  # fmt: skip
        """The loss and flat gradient at ``x + t d``; the parameters are put back to ``x``."""
        self._move(t, d)
        loss = float(closure())
        flat_grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, flat_grad

    # ----- one step: up to max_iter iterations --------------------------------------------

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Run up to ``max_iter`` iterations; returns the loss before the first."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that reevaluates the model and returns the loss")
        with no_grad():
            return self._iterate(closure)

    def _iterate(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        def evaluate() -> Any:
            with enable_grad():
                return closure()

        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        first_loss = evaluate()
        loss = float(first_loss)
        evaluations = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return first_loss  # already at a stationary point
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_loss = state.get("H_diag"), state.get("prev_loss")
        prev_flat_grad = state.get("prev_flat_grad")
        iteration = 0
        while iteration < max_iter:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:  # no history yet: steepest descent
                d, old_dirs, old_stps, ro, h_diag = flat_grad.neg(), [], [], [], 1
            else:
                y, s = flat_grad - prev_flat_grad, d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only if the curvature along s is positive
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y), old_stps.append(s), ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                d = self._two_loop(state, flat_grad, old_dirs, old_stps, ro, h_diag, history_size)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            slope = flat_grad.dot(d)
            if slope > -tolerance_change:
                break  # not a descent direction (any more)
            step_evaluations = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_start = [p.clone() for p in self._params]
                along_d = functools.partial(self._evaluate_at, evaluate, x_start, d=d)
                searched = strong_wolfe(along_d, t, d, loss, flat_grad, slope, max_ls=max_eval - evaluations)
                loss, flat_grad, t, step_evaluations = searched
                self._move(t, d)
                at_minimum = flat_grad.abs().max() <= tolerance_grad
            else:
                self._move(t, d)
                at_minimum = False
                if iteration != max_iter:  # the last iteration's loss is the next step's
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    at_minimum = flat_grad.abs().max() <= tolerance_grad
                    step_evaluations = 1
            evaluations += step_evaluations
            state["func_evals"] += step_evaluations
            if iteration == max_iter or evaluations >= max_eval or at_minimum:
                break
            if (d * t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break  # the parameters or the loss no longer change
        state.update({"d": d, "t": t, "old_dirs": old_dirs, "old_stps": old_stps, "ro": ro, "H_diag": h_diag,
                      "prev_flat_grad": prev_flat_grad, "prev_loss": prev_loss})  # fmt: skip
        return first_loss

    @staticmethod
    def _two_loop(state: dict[str, Any], flat_grad: Tensor, old_dirs: list, old_stps: list, ro: list,
                  h_diag: Any, history_size: int) -> Tensor:  # fmt: skip
        """The two-loop recursion of the module docstring: ``-H g`` from the history."""
        alphas = state.setdefault("al", [None] * history_size)
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            alphas[i] = old_stps[i].dot(q) * ro[i]
            q.sub_(old_dirs[i] * alphas[i])
        r = q * h_diag
        for i in range(len(old_dirs)):
            beta = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i] * (alphas[i] - beta))
        return r
